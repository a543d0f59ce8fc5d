//! A data subject's rights in PostgreSQL: the domain's `PersonalDataStore`.

use crate::idempotency::{forget_subject, subject_tags};
use crate::person_columns::{ANONYMIZE_COPIES, ANONYMIZE_REGISTRATION};
use crate::pool::{PgPool, connection, query_error};
use crate::read_model;
use crate::replicas::ReadPools;
use crate::rows::stored;
use crate::sealing::SecretSealer;
use crate::statement::{Statement, statement};
use async_trait::async_trait;
use chrono::{DateTime, Utc};
use diesel::QueryableByName;
use diesel::result::Error as DieselError;
use diesel::sql_types::{Array, BigInt, Bool, Bytea, Jsonb, Nullable, Text, Timestamptz};
use diesel_async::{AsyncConnection, AsyncPgConnection, RunQueryDsl};
use domain::history::actions;
use domain::privacy::consents::{ConsentEvidence, ConsentOutcome, ConsentRecord, NewConsent};
use domain::privacy::hold::{ContractTerm, HoldPolicy, LegalHold, StatusMove, legal_hold};
use domain::privacy::{
    AnonymizeOutcome, Anonymized, KeptDocument, PersonalDataExport, PersonalDataStore, PlatformRedaction,
};
use domain::store::StoreError;
use domain::values::{Cpf, ProposalStatus};
use std::collections::HashMap;
use std::sync::Arc;

#[derive(Clone)]
pub struct PgPersonalData {
    pool: PgPool,
    /// The export's reading: on a replica when one is fresh enough.
    reads: ReadPools,
    /// Finds the kept idempotent answers about a person by their keyed digests.
    sealer: Arc<SecretSealer>,
}

impl PgPersonalData {
    pub fn new(pool: PgPool, sealer: Arc<SecretSealer>) -> Self {
        Self {
            reads: ReadPools::primary_only(pool.clone()),
            pool,
            sealer,
        }
    }

    /// The same store with the export read from `reads`' replicas.
    pub fn reading_from(self, reads: ReadPools) -> Self {
        Self { reads, ..self }
    }
}

statement! {
    /// Everything held under a CPF, in one statement: rows as stored (`to_jsonb`), documents by
    /// digest only (their bytes are the contract, not a list of data).
    EXPORT => Document = "\
SELECT jsonb_build_object(
    'cpf', $1::text,
    'cadastros', coalesce((
        SELECT jsonb_agg(to_jsonb(c) - 'id_endereco'
                || jsonb_build_object('endereco', to_jsonb(a), 'vendedor', jsonb_build_object(
                    'aplicacao', c.aplicacao_vendedor, 'cpf_cnpj_parceiro', pa.cpf_cnpj, 'nome_parceiro', pa.social_reason))
                ORDER BY c.id)
        FROM customers c
        LEFT JOIN addresses a ON a.id = c.id_endereco
        LEFT JOIN partners pa ON pa.id = c.id_parceiro_vendedor
        WHERE c.cpf = $1), '[]'::jsonb),
    'propostas', coalesce((
        SELECT jsonb_agg(jsonb_build_object(
            'proposta', to_jsonb(p),
            'cliente', (SELECT to_jsonb(pc) - 'nome_busca' FROM proposal_customers pc WHERE pc.id_proposta = p.id),
            'pagamento', (SELECT to_jsonb(pp) FROM proposal_payments pp WHERE pp.id_proposta = p.id),
            'beneficiarios', coalesce((SELECT b.beneficiarios FROM proposal_beneficiaries b WHERE b.id_proposta = p.id),
                '[]'::jsonb),
            'assinatura', (SELECT to_jsonb(s) || jsonb_build_object('signatarios', coalesce((
                    SELECT jsonb_agg(to_jsonb(sp) ORDER BY sp.role) FROM signature_parties sp WHERE sp.signature_id = s.id),
                    '[]'::jsonb))
                FROM signatures s WHERE s.proposal_id = p.id),
            'documentos', coalesce((
                SELECT jsonb_agg(d ORDER BY d ->> 'versao') FROM (
                    SELECT jsonb_build_object('versao', 'selado', 'sha256', sd.sha256, 'em', sd.sealed_at) AS d
                    FROM sealed_documents sd WHERE sd.proposal_id = p.id
                    UNION ALL
                    SELECT jsonb_build_object('versao', 'assinado', 'sha256', gd.sha256, 'em', gd.made_at)
                    FROM signed_documents gd WHERE gd.proposal_id = p.id
                    UNION ALL
                    SELECT jsonb_build_object('versao', 'provedor', 'sha256', pv.sha256, 'em', pv.received_at)
                    FROM provider_signed_copies pv WHERE pv.document_key = p.key_documento) AS docs), '[]'::jsonb),
            'avisos', (SELECT to_jsonb(n) - 'id_proposta' FROM proposal_notices n WHERE n.id_proposta = p.id),
            'assinaturas_pagamento', coalesce((
                SELECT jsonb_agg(to_jsonb(su) ORDER BY su.id) FROM subscriptions su WHERE su.proposal_id = p.id),
                '[]'::jsonb),
            'eventos', coalesce((
                SELECT jsonb_agg(to_jsonb(e) ORDER BY e.sequence) FROM proposal_events e WHERE e.proposal_id = p.id),
                '[]'::jsonb),
            'cobranca', jsonb_build_object(
                'pix_recorrencia', EXISTS (SELECT 1 FROM pix_recurrences r WHERE r.id_proposta = p.id),
                'arquivo_debito', EXISTS (SELECT 1 FROM debit_file_items i JOIN charges ch ON ch.id = i.id_cobranca
                                          WHERE ch.id_proposta = p.id),
                'averbacao', EXISTS (SELECT 1 FROM averbacoes av WHERE av.id_proposta = p.id)),
            'protocolos', coalesce((
                SELECT jsonb_agg(to_jsonb(r) - 'proposal_id' ORDER BY r.solicitado_em)
                FROM customer_requests r WHERE r.proposal_id = p.id),
                '[]'::jsonb),
            'reembolsos', coalesce((
                SELECT jsonb_agg(jsonb_build_object('id', rf.id, 'protocolo', rf.protocolo, 'fatura', rf.invoice_id,
                        'valor_centavos', rf.amount_cents, 'status', rf.status, 'em', rf.created_at,
                        'motivo', rf.motivo, 'meio', rf.meio, 'valor_pago_centavos', coalesce(rf.nominal_cents, rf.amount_cents),
                        'correcao', rf.correcao, 'referencia', rf.referencia, 'pago_em', rf.pago_em,
                        'vence_em', rf.vence_em, 'corrige_atraso_de', rf.atraso_de)
                    ORDER BY rf.created_at, rf.meio DESC, rf.id)
                FROM refunds rf WHERE rf.proposal_id = p.id),
                '[]'::jsonb),
            'destino_reembolso', (SELECT to_jsonb(rd) - 'id_proposta' FROM refund_destinations rd
                WHERE rd.id_proposta = p.id),
            'razao', coalesce((
                SELECT jsonb_agg(jsonb_build_object('tipo', l.tipo, 'valor_centavos', l.valor, 'origem', l.origem,
                        'id_origem', l.id_origem, 'trilho', l.trilho, 'em', l.ocorrido_em) ORDER BY l.id)
                FROM ledger_entries l WHERE l.id_proposta = p.id),
                '[]'::jsonb),
            'historico', coalesce((
                SELECT jsonb_agg(jsonb_build_object('at', h.at, 'by', h.changed_by, 'action', h.action, 'changes', h.changes)
                    ORDER BY h.id)
                FROM proposal_history h WHERE h.proposal_id = p.id), '[]'::jsonb))
            ORDER BY p.id)
        FROM proposals p WHERE p.cpf_cliente = $1), '[]'::jsonb))
    -- Named only for a blocked person (LGPD art. 18, IV): the hold's basis and end.
    || coalesce((SELECT jsonb_build_object('bloqueio', jsonb_build_object(
            'base', b.base, 'ate', b.retido_ate, 'desde', b.bloqueado_em, 'por', b.bloqueado_por))
        FROM personal_data_blocks b WHERE b.cpf = $1), '{}'::jsonb)
    -- Named only when there are some: each consent given or revoked, oldest first.
    || coalesce((SELECT jsonb_build_object('consentimentos', jsonb_agg(jsonb_build_object(
            'finalidade', c.finalidade, 'concedido', c.concedido, 'em', c.registrado_em, 'por', c.registrado_por,
            'canal', c.canal, 'evidencia', c.evidencia)
            ORDER BY c.id))
        FROM privacy_consents c WHERE c.cpf = $1 HAVING count(*) > 0), '{}'::jsonb)
    -- Named only when there are some: the person's requests (LGPD art. 18), oldest first.
    || coalesce((SELECT jsonb_build_object('solicitacoes', jsonb_agg(jsonb_build_object(
            'protocolo', r.protocolo, 'tipo', r.tipo, 'canal', r.canal, 'recebidoEm', r.recebido_em, 'prazo', r.prazo,
            'respondidoEm', r.respondido_em) ORDER BY r.recebido_em, r.protocolo))
        FROM privacy_requests r WHERE r.cpf = $1 HAVING count(*) > 0), '{}'::jsonb) AS document";
}

#[derive(QueryableByName)]
struct Document {
    #[diesel(sql_type = Jsonb)]
    document: serde_json::Value,
}

#[derive(QueryableByName)]
struct Registration {
    #[diesel(sql_type = BigInt)]
    id: i64,
    #[diesel(sql_type = Nullable<BigInt>)]
    id_endereco: Option<i64>,
}

#[derive(QueryableByName)]
struct ProposalOfCpf {
    #[diesel(sql_type = BigInt)]
    id: i64,
    #[diesel(sql_type = Text)]
    identificador: String,
    #[diesel(sql_type = Text)]
    status: String,
}

statement! {
    /// The status moves of the proposals `$1`, as their events record them.
    STATUS_MOVES => MoveRow = "SELECT proposal_id, from_status, to_status, changed_at FROM proposal_events \
         WHERE proposal_id = ANY($1) ORDER BY id";
}

#[derive(QueryableByName)]
struct MoveRow {
    #[diesel(sql_type = BigInt)]
    proposal_id: i64,
    #[diesel(sql_type = Text)]
    from_status: String,
    #[diesel(sql_type = Text)]
    to_status: String,
    #[diesel(sql_type = Timestamptz)]
    changed_at: DateTime<Utc>,
}

/// Each proposal `(id, identifier, status as stored)` with its status read: a status no proposal
/// can have is the store's broken invariant, naming the column.
pub(crate) fn read_statuses<'a>(
    proposals: impl IntoIterator<Item = (i64, &'a str, &'a str)>,
) -> Result<Vec<(i64, &'a str, ProposalStatus)>, DieselError> {
    proposals
        .into_iter()
        .map(|(id, identifier, status)| {
            Ok((
                id,
                identifier,
                stored(ProposalStatus::from_stored(status, "proposals", "status"))?,
            ))
        })
        .collect()
}

/// The contract term of each proposal `(id, identifier, status)` that became a contract, by id,
/// as the domain reads it from the proposal's status and its moves (`ContractTerm::of`): the
/// legal hold and the retention schedule judge contracts by it.
pub(crate) async fn contract_terms(
    conn: &mut AsyncPgConnection,
    proposals: &[(i64, &str, ProposalStatus)],
) -> Result<HashMap<i64, ContractTerm>, DieselError> {
    let ids: Vec<i64> = proposals.iter().map(|(id, _, _)| *id).collect();
    let rows: Vec<MoveRow> = STATUS_MOVES.query().bind::<Array<BigInt>, _>(&ids).load(conn).await?;
    let mut moves: HashMap<i64, Vec<StatusMove>> = HashMap::new();
    for row in rows {
        let status = |s: &str, column| stored(ProposalStatus::from_stored(s, "proposal_events", column));
        moves.entry(row.proposal_id).or_default().push(StatusMove {
            from: status(&row.from_status, "from_status")?,
            to: status(&row.to_status, "to_status")?,
            at: row.changed_at,
        });
    }
    Ok(proposals
        .iter()
        .filter_map(|(id, identifier, status)| {
            let moves = moves.get(id).map(Vec::as_slice).unwrap_or_default();
            ContractTerm::of(identifier, *status, moves).map(|term| (*id, term))
        })
        .collect())
}

statement! {
    /// The block recorded (its end moved to the hold's latest), and the proposals' documents kept
    /// out of the sellers' reads.
    BLOCK = "\
INSERT INTO personal_data_blocks (cpf, base, retido_ate, bloqueado_por) VALUES ($1, $2, $3, $4)
ON CONFLICT (cpf) DO UPDATE SET base = EXCLUDED.base, retido_ate = EXCLUDED.retido_ate";
}
statement! {
    BLOCK_DOCUMENTS = "UPDATE proposal_read_models SET bloqueado = true WHERE id_proposta = ANY($1)";
}
statement! {
    /// Each request refused under the hold is in every proposal's history, with the basis and end.
    BLOCK_HISTORY = "\
INSERT INTO proposal_history (proposal_id, changed_by, action, changes)
SELECT id, $2, $3, jsonb_build_object('base', jsonb_build_object('from', NULL, 'to', $4::text),
    'ate', jsonb_build_object('from', NULL, 'to', $5::timestamptz))
FROM unnest($1::bigint[]) AS id ORDER BY id";
}
statement! {
    /// Anonymised, the person is no longer blocked: nothing of them is left to block.
    UNBLOCK = "DELETE FROM personal_data_blocks WHERE cpf = $1";
}
statement! {
    UNBLOCK_DOCUMENTS = "UPDATE proposal_read_models SET bloqueado = false WHERE id_proposta = ANY($1) AND bloqueado";
}

statement! {
    /// Whether anything is held under the CPF (its registrations locked for the transaction) and
    /// whether the person is blocked.
    CONSENT_SUBJECT => PersonState = "\
SELECT (EXISTS (SELECT 1 FROM (SELECT id FROM customers WHERE cpf = $1 FOR SHARE) AS r)
        OR EXISTS (SELECT 1 FROM proposals WHERE cpf_cliente = $1)) AS held,
    EXISTS (SELECT 1 FROM personal_data_blocks WHERE cpf = $1) AS blocked";
}

#[derive(QueryableByName)]
struct PersonState {
    #[diesel(sql_type = Bool)]
    held: bool,
    #[diesel(sql_type = Bool)]
    blocked: bool,
}

#[derive(QueryableByName)]
struct RecordedConsent {
    #[diesel(sql_type = Timestamptz)]
    registrado_em: DateTime<Utc>,
}

#[derive(QueryableByName)]
struct PlatformCustomer {
    #[diesel(sql_type = Text)]
    platform_customer_id: String,
}

#[derive(QueryableByName)]
struct Kept {
    #[diesel(sql_type = Text)]
    identificador: String,
    #[diesel(sql_type = Text)]
    versao: String,
    #[diesel(sql_type = Text)]
    sha256: String,
}

statement! {
    ANONYMIZE_PROPOSALS = "\
UPDATE proposals SET cpf_cliente = $2, alterado_por = $3, alterado_em = now() WHERE id_cliente = $1";
}

statement! {
    /// How the contract was paid stays (the kind, the bank, the benefit's kind and species); the
    /// person's means of payment go (the numbers a kind requires become `***`).
    ANONYMIZE_PAYMENTS = "\
UPDATE proposal_payments SET nome_cartao = NULL, numero_cartao = NULL, validade = NULL,
    agencia = CASE WHEN agencia IS NULL THEN NULL ELSE '***' END, conta = CASE WHEN conta IS NULL THEN NULL ELSE '***' END,
    operacao = NULL, numero_folha = CASE WHEN numero_folha IS NULL THEN NULL ELSE '***' END, orgao_emissor = NULL,
    alterado_por = $2, alterado_em = now()
WHERE id_proposta = ANY($1)";
}

statement! {
    /// The client's address, browser and location at signing: the signed document's evidence page
    /// keeps them as the contract's evidence.
    ANONYMIZE_CLIENT_SIGNATURES = "\
UPDATE signature_parties sp SET ip = NULL, user_agent = NULL, latitude = NULL, longitude = NULL
FROM signatures s WHERE s.id = sp.signature_id AND s.proposal_id = ANY($1) AND sp.role = 'client'";
}

statement! {
    /// The platform's subscription objects carry the buyer's name and e-mail.
    ANONYMIZE_SUBSCRIPTIONS = "UPDATE subscriptions SET object = NULL WHERE proposal_id = ANY($1)";
}

statement! {
    /// What the requests asked and were answered becomes the marker (as at the health horizon,
    /// decision 290); the masked address a proponent's link went to (decision 289) goes.
    ANONYMIZE_PENDING_ANSWERS = "\
UPDATE proposal_pending_requests
   SET itens = ARRAY[history_reason_marker()],
       nota = CASE WHEN nota IS NULL THEN NULL ELSE history_reason_marker() END,
       resposta = CASE WHEN resposta IS NULL THEN NULL ELSE history_reason_marker() END,
       link_enviado_para = NULL
WHERE id_proposta = ANY($1)";
}

statement! {
    /// The beneficiaries the person named (third parties, decision 279): their names become the
    /// placeholder, their CPFs and birth dates go; kinship and shares stay with the contract.
    ANONYMIZE_BENEFICIARIES = "\
UPDATE proposal_beneficiaries SET beneficiarios = (
    SELECT jsonb_agg(b || jsonb_build_object('nome', 'Beneficiário anonimizado', 'cpf', NULL, 'data_nascimento', NULL)
                     ORDER BY n)
    FROM jsonb_array_elements(beneficiarios) WITH ORDINALITY AS e (b, n))
WHERE id_proposta = ANY($1)";
}

statement! {
    /// Where refunds were paid: forgotten, unless a refund is still to pay there (the insurer owes it,
    /// and the destination is how it pays; the next anonymisation or retention pass takes it).
    FORGET_REFUND_DESTINATIONS = "\
DELETE FROM refund_destinations d
WHERE d.id_proposta = ANY($1)
  AND NOT EXISTS (SELECT 1 FROM refunds r WHERE r.proposal_id = d.id_proposta AND r.status = 'a_pagar')";
}

statement! {
    /// The documents of proposals that never became a contract are deleted and the proposals
    /// remembered as such: never signed, cancelled before the last signature, or signed and refused
    /// (what defends a refusal is kept apart first, decision 290; the signed proposal is not it).
    REMOVE_UNSIGNED_DOCUMENTS = "\
WITH never_contracts AS (
    SELECT p.id AS p FROM proposals p
    WHERE p.id = ANY($1)
      AND (p.status = 'REPROVADO' OR NOT EXISTS (SELECT 1 FROM signed_documents g WHERE g.proposal_id = p.id))
), deleted_signed AS (
    DELETE FROM signed_documents g USING never_contracts n WHERE g.proposal_id = n.p RETURNING g.proposal_id
), deleted AS (
    DELETE FROM sealed_documents sd USING never_contracts n WHERE sd.proposal_id = n.p RETURNING sd.proposal_id
)
INSERT INTO removed_documents (proposal_id, removed_by)
SELECT p, $2 FROM never_contracts
ON CONFLICT (proposal_id) DO NOTHING";
}

statement! {
    REASONS_OUT_OF_DELIVERIES = "UPDATE hook_deliveries d
     SET body = jsonb_set(d.body::jsonb, '{data,motivo}', to_jsonb(history_reason_marker()))::text
     FROM proposal_events e
     WHERE d.proposal_event_id = e.id AND e.proposal_id = ANY($1) AND e.reason IS NOT NULL
       AND e.reason_category IS NULL";
}
statement! {
    REASONS_OUT_OF_EVENTS = "UPDATE proposal_events SET reason = history_reason_marker()
     WHERE proposal_id = ANY($1) AND reason IS NOT NULL";
}
statement! {
    REASONS_OUT_OF_REQUESTS =
        "UPDATE customer_requests SET motivo = history_reason_marker() WHERE proposal_id = ANY($1)";
}
statement! {
    REASONS_OUT_OF_OPERATIONS = "UPDATE proposal_operations SET reason = history_reason_marker()
     WHERE proposal_id = ANY($1) AND reason IS NOT NULL";
}
statement! {
    REASONS_OUT_OF_HISTORY = "UPDATE proposal_history
     SET changes = history_without_reasons(history_without_free_text(changes))
     WHERE proposal_id = ANY($1) AND (changes ? 'motivo' OR changes ? 'itens')";
}
statement! {
    /// What a request for documents the seller answers asked travels in `PENDENCIA_ABERTA`
    /// (decision 289): the copies kept for delivery take the marker too.
    ITEMS_OUT_OF_DELIVERIES = "UPDATE hook_deliveries d
     SET body = jsonb_set(jsonb_set(d.body::jsonb, '{data,itens}', jsonb_build_array(history_reason_marker())),
                          '{data,nota}', CASE WHEN d.body::jsonb -> 'data' -> 'nota' = 'null'::jsonb THEN 'null'::jsonb
                                              ELSE to_jsonb(history_reason_marker()) END)::text
     FROM proposals p
     WHERE p.id = ANY($1) AND d.event_type = 'PENDENCIA_ABERTA'
       AND d.body::jsonb -> 'data' ->> 'identificador' = p.identificador
       AND d.body::jsonb -> 'data' -> 'itens' <> '[]'::jsonb";
}
/// What people wrote about the customer when moving a proposal (its reasons) or asking for
/// documents becomes the history's marker: in the events, in the webhook deliveries' copies, in
/// the customer's requests (their protocols stay), in the operations that carried them (decision
/// 158) and in the history (the one update its append-only rule admits, decision 128).
const REMOVE_REASONS: [Statement; 6] = [
    REASONS_OUT_OF_DELIVERIES,
    ITEMS_OUT_OF_DELIVERIES,
    REASONS_OUT_OF_EVENTS,
    REASONS_OUT_OF_REQUESTS,
    REASONS_OUT_OF_OPERATIONS,
    REASONS_OUT_OF_HISTORY,
];

statement! {
    /// The kept answers about the person: key and when (`$1` the CPF's digests, `$2` and `$3` its
    /// digits and its formatted text).
    KEPT_ANSWERS => Document = crate::idempotency::kept_answers!();
}

statement! {
    KEPT_DOCUMENTS => Kept = "\
SELECT p.identificador, 'selado' AS versao, sd.sha256 FROM sealed_documents sd JOIN proposals p ON p.id = sd.proposal_id
WHERE p.id = ANY($1)
UNION ALL
SELECT p.identificador, 'assinado', gd.sha256 FROM signed_documents gd JOIN proposals p ON p.id = gd.proposal_id
WHERE p.id = ANY($1)
UNION ALL
SELECT p.identificador, 'provedor', pv.sha256 FROM provider_signed_copies pv JOIN proposals p ON p.key_documento = pv.document_key
WHERE p.id = ANY($1)
ORDER BY 1, 2";
}

/// The transaction's body; `Err(Blocked)` rolls it back with nothing changed.
pub(crate) enum Stop {
    Blocked(Vec<String>),
    Db(DieselError),
}

impl From<DieselError> for Stop {
    fn from(e: DieselError) -> Self {
        Stop::Db(e)
    }
}

/// Blocks the person under `hold` (their proposals `ids`): the transaction then commits.
async fn block(conn: &mut AsyncPgConnection, cpf: &Cpf, ids: &[i64], hold: &LegalHold, by: &str) -> Result<(), Stop> {
    BLOCK
        .query()
        .bind::<Text, _>(cpf.as_str())
        .bind::<Text, _>(hold.basis)
        .bind::<Nullable<Timestamptz>, _>(hold.until)
        .bind::<Text, _>(by)
        .execute(conn)
        .await?;
    BLOCK_DOCUMENTS
        .query()
        .bind::<Array<BigInt>, _>(ids)
        .execute(conn)
        .await?;
    BLOCK_HISTORY
        .query()
        .bind::<Array<BigInt>, _>(ids)
        .bind::<Text, _>(by)
        .bind::<Text, _>(actions::BLOCKED)
        .bind::<Text, _>(hold.basis)
        .bind::<Nullable<Timestamptz>, _>(hold.until)
        .execute(conn)
        .await?;
    Ok(())
}

/// What the proposals `ids` hold of the person beyond their copy of the registration: the means
/// of payment, the client's signing evidence, the platform's objects, the files and answers sent
/// for requests for documents, the beneficiaries named, the documents never signed and the
/// reasons people wrote. Run
/// with `sales.history_action = 'anonimizacao'` (the reasons' history entries change under it).
pub(crate) async fn anonymize_contents(conn: &mut AsyncPgConnection, ids: &[i64], by: &str) -> Result<(), DieselError> {
    ANONYMIZE_PAYMENTS
        .query()
        .bind::<Array<BigInt>, _>(ids)
        .bind::<Text, _>(by)
        .execute(conn)
        .await?;
    for statement in [
        ANONYMIZE_CLIENT_SIGNATURES,
        ANONYMIZE_SUBSCRIPTIONS,
        crate::refusal_defences::PENDING_FILES,
        ANONYMIZE_PENDING_ANSWERS,
        ANONYMIZE_BENEFICIARIES,
        FORGET_REFUND_DESTINATIONS,
    ] {
        statement.query().bind::<Array<BigInt>, _>(ids).execute(conn).await?;
    }
    REMOVE_UNSIGNED_DOCUMENTS
        .query()
        .bind::<Array<BigInt>, _>(ids)
        .bind::<Text, _>(by)
        .execute(conn)
        .await?;
    for statement in REMOVE_REASONS {
        statement.query().bind::<Array<BigInt>, _>(ids).execute(conn).await?;
    }
    Ok(())
}

pub(crate) async fn anonymize_in(
    conn: &mut AsyncPgConnection,
    sealer: &SecretSealer,
    cpf: &Cpf,
    by: &str,
    now: DateTime<Utc>,
    policy: HoldPolicy,
) -> Result<AnonymizeOutcome, Stop> {
    statement! {
        UPDATE_PRIVACY_REQUESTS = "UPDATE privacy_requests SET cpf = $2, observacao = NULL, arquivo_enviado_para = NULL,
                 resposta = CASE WHEN resposta IS NULL THEN NULL ELSE history_reason_marker() END
             WHERE cpf = $1";
    }
    statement! {
        UPDATE_PRIVACY_CONSENTS = "UPDATE privacy_consents SET cpf = $2,
                 evidencia = evidencia - 'enderecoIp' - 'navegador' - 'enviadoPara' - 'referencia'
             WHERE cpf = $1";
    }
    statement! {
        DELETE_PERSON_LINKS = "DELETE FROM privacy_person_links WHERE cpf = $1";
    }
    statement! {
        /// The CPF's status kept for the screening, and development's answer for it.
        DELETE_CPF_STATUS = "WITH answers AS (DELETE FROM kyc_sandbox_cpf_status WHERE cpf = $1) \
             DELETE FROM kyc_cpf_status WHERE cpf = $1";
    }
    statement! {
        /// The diligence of the proposals `$1` keeps why it was asked (the codes), not what was
        /// found of the person (a role on the list, what the CPF's check said) nor the note.
        ANONYMIZE_DILIGENCE = "UPDATE proposal_kyc k SET nota = NULL, motivos = ( \
                 SELECT jsonb_agg(jsonb_build_object('codigo', m ->> 'codigo', 'detalhe', '') ORDER BY n) \
                 FROM jsonb_array_elements(k.motivos) WITH ORDINALITY AS r (m, n)) \
             WHERE k.id_proposta = ANY($1)";
    }
    statement! {
        DELETE_ADDRESSES = "DELETE FROM addresses a WHERE a.id = $1 AND NOT EXISTS (SELECT 1 FROM customers c WHERE c.id_endereco = a.id)";
    }
    statement! {
        INSERT_PAYMENT_CUSTOMER_REDACTIONS => PlatformCustomer = "INSERT INTO payment_customer_redactions (platform_customer_id, requested_by)
             SELECT DISTINCT ecommerce_customer_id, $2 FROM customers
             WHERE cpf = $1 AND ecommerce_customer_id IS NOT NULL
             ON CONFLICT (platform_customer_id) DO UPDATE
                 SET requested_by = EXCLUDED.requested_by, requested_at = now(), answered_at = NULL, error = NULL
             RETURNING platform_customer_id";
    }
    statement! {
        LOCK_PROPOSALS => ProposalOfCpf = "SELECT id, identificador, status FROM proposals WHERE cpf_cliente = $1 ORDER BY id FOR UPDATE";
    }
    statement! {
        LOCK_CUSTOMERS => Registration = "SELECT id, id_endereco FROM customers WHERE cpf = $1 ORDER BY id FOR UPDATE";
    }
    statement! {
        HISTORY_SAYS_ANONYMISATION = "SET LOCAL sales.history_action = 'anonimizacao'";
    }
    // The history's entries of this transaction say `anonimizacao`.
    HISTORY_SAYS_ANONYMISATION.query().execute(conn).await?;
    // Locked first, so that no registration of the CPF changes while it is anonymised.
    let registrations: Vec<Registration> = LOCK_CUSTOMERS.query().bind::<Text, _>(cpf.as_str()).load(conn).await?;
    let proposals: Vec<ProposalOfCpf> = LOCK_PROPOSALS.query().bind::<Text, _>(cpf.as_str()).load(conn).await?;
    let mut open = Vec::new();
    for p in &proposals {
        if !stored(ProposalStatus::from_stored(&p.status, "proposals", "status"))?.is_finished() {
            open.push(p.identificador.clone());
        }
    }
    if !open.is_empty() {
        return Err(Stop::Blocked(open));
    }
    let ids: Vec<i64> = proposals.iter().map(|p| p.id).collect();
    // A contract the law says to keep blocks the person instead (committed: the block is the
    // answer to the request).
    let statuses = read_statuses(
        proposals
            .iter()
            .map(|p| (p.id, p.identificador.as_str(), p.status.as_str())),
    )?;
    let mut terms_by_id = contract_terms(conn, &statuses).await?;
    let terms: Vec<ContractTerm> = statuses
        .iter()
        .filter_map(|(id, _, _)| terms_by_id.remove(id))
        .collect();
    if let Some(hold) = legal_hold(&terms, now, policy) {
        block(conn, cpf, &ids, &hold, by).await?;
        return Ok(AnonymizeOutcome::Held(hold));
    }
    // A refusal's defence is kept apart before the proposal's data goes (decision 290).
    crate::refusal_defences::keep(conn, sealer, cpf, &ids, by, now).await?;
    // Kept answers of creating requests about the person (their retries are told so from now on).
    let forgotten_answers = forget_subject(conn, sealer, cpf).await?;
    if registrations.is_empty() && proposals.is_empty() && forgotten_answers == 0 {
        return Ok(AnonymizeOutcome::NothingHeld);
    }
    // The payment platform's customers of the person, recorded before their ids are cleared:
    // the use case asks the platform to redact each once this commits.
    let platform_customers: Vec<PlatformCustomer> = INSERT_PAYMENT_CUSTOMER_REDACTIONS
        .query()
        .bind::<Text, _>(cpf.as_str())
        .bind::<Text, _>(by)
        .load(conn)
        .await?;
    let placeholder = |id: i64| Cpf::anonymous_placeholder(id.unsigned_abs());
    // Every proposal of the CPF was made from one of its registrations (`id_cliente`): each
    // registration, its proposals' copies and the proposals take that registration's placeholder.
    for registration in &registrations {
        let stand_in = placeholder(registration.id);
        for statement in [ANONYMIZE_REGISTRATION, ANONYMIZE_COPIES, ANONYMIZE_PROPOSALS] {
            statement
                .query()
                .bind::<BigInt, _>(registration.id)
                .bind::<Text, _>(&stand_in)
                .bind::<Text, _>(by)
                .execute(conn)
                .await?;
        }
        // Its address, now referenced by nothing (each registration has its own).
        if let Some(address) = registration.id_endereco {
            DELETE_ADDRESSES
                .query()
                .bind::<BigInt, _>(address)
                .execute(conn)
                .await?;
        }
    }
    // The consents' trail stays, tied to no one: the first registration's stand-in; of the proof,
    // what says which text was agreed to and how (not from where, nor the reference to a recording).
    let trail_stand_in = placeholder(registrations.iter().map(|r| r.id).min().unwrap_or(0));
    UPDATE_PRIVACY_CONSENTS
        .query()
        .bind::<Text, _>(cpf.as_str())
        .bind::<Text, _>(&trail_stand_in)
        .execute(conn)
        .await?;
    // So do the person's requests: what was asked, when and how it was answered, in time or not;
    // what people wrote about them goes.
    UPDATE_PRIVACY_REQUESTS
        .query()
        .bind::<Text, _>(cpf.as_str())
        .bind::<Text, _>(&trail_stand_in)
        .execute(conn)
        .await?;
    // The links mailed to the person served their half hour; the requests they filed stay.
    DELETE_PERSON_LINKS
        .query()
        .bind::<Text, _>(cpf.as_str())
        .execute(conn)
        .await?;
    DELETE_CPF_STATUS
        .query()
        .bind::<Text, _>(cpf.as_str())
        .execute(conn)
        .await?;
    ANONYMIZE_DILIGENCE
        .query()
        .bind::<Array<BigInt>, _>(&ids)
        .execute(conn)
        .await?;
    UNBLOCK.query().bind::<Text, _>(cpf.as_str()).execute(conn).await?;
    UNBLOCK_DOCUMENTS
        .query()
        .bind::<Array<BigInt>, _>(&ids)
        .execute(conn)
        .await?;
    anonymize_contents(conn, &ids, by).await?;
    read_model::write_documents(conn, &ids).await?;
    let kept: Vec<Kept> = KEPT_DOCUMENTS.query().bind::<Array<BigInt>, _>(&ids).load(conn).await?;
    Ok(AnonymizeOutcome::Done(Anonymized {
        registrations: i64::try_from(registrations.len()).unwrap_or(i64::MAX),
        forgotten_answers: i64::try_from(forgotten_answers).unwrap_or(i64::MAX),
        platform_customers: platform_customers
            .into_iter()
            .map(|c| PlatformRedaction {
                platform_customer: c.platform_customer_id,
                outcome: None,
            })
            .collect(),
        proposals: proposals.into_iter().map(|p| p.identificador).collect(),
        kept_documents: kept
            .into_iter()
            .map(|k| KeptDocument {
                identifier: k.identificador,
                version: k.versao,
                sha256: k.sha256,
            })
            .collect(),
    }))
}

#[async_trait]
impl PersonalDataStore for PgPersonalData {
    async fn export(&self, cpf: &Cpf, by: &str) -> Result<PersonalDataExport, StoreError> {
        statement! {
            INSERT_PROPOSAL_HISTORY = "INSERT INTO proposal_history (proposal_id, changed_by, action, changes) \
                 SELECT id, $2, 'exportacao', '{}'::jsonb FROM proposals WHERE cpf_cliente = $1 ORDER BY id";
        }
        let tags = subject_tags(&self.sealer, cpf);
        // Read in one snapshot (a replica's when one is fresh enough); the export's entry in the
        // history is then written on the primary, and the answer waits for it.
        let (mut found, answers) = self
            .reads
            .read(|mut conn| {
                let tags = tags.clone();
                async move {
                    conn.build_transaction()
                        .read_only()
                        .repeatable_read()
                        .run(async |conn| {
                            let found: Document = EXPORT.query().bind::<Text, _>(cpf.as_str()).get_result(conn).await?;
                            // That answers about the person are kept for retries (never their content).
                            let answers: Document = KEPT_ANSWERS
                                .query()
                                .bind::<Array<Bytea>, _>(tags)
                                .bind::<Text, _>(cpf.as_str())
                                .bind::<Text, _>(cpf.formatted())
                                .get_result(conn)
                                .await?;
                            Ok::<_, DieselError>((found.document, answers.document))
                        })
                        .await
                        .map_err(query_error)
                }
            })
            .await?;
        // Named only when there are some: the export of nothing held stays empty lists.
        let any = answers.as_array().is_some_and(|a| !a.is_empty());
        if let Some(members) = found.as_object_mut().filter(|_| any) {
            members.insert("respostas_idempotentes".into(), answers);
        }
        // Read before the history says it was exported.
        let export = PersonalDataExport::of(found)?;
        let mut conn = connection(&self.pool).await?;
        INSERT_PROPOSAL_HISTORY
            .query()
            .bind::<Text, _>(cpf.as_str())
            .bind::<Text, _>(by)
            .execute(&mut conn)
            .await
            .map_err(query_error)?;
        Ok(export)
    }

    async fn record_consent(&self, cpf: &Cpf, consent: NewConsent, by: &str) -> Result<ConsentOutcome, StoreError> {
        let evidence = consent.evidence.as_ref().map(ConsentEvidence::document);
        statement! {
            INSERT_PRIVACY_CONSENTS => RecordedConsent = "INSERT INTO privacy_consents (cpf, finalidade, concedido, registrado_por, canal, evidencia)
                     VALUES ($1, $2, $3, $4, $5, $6) RETURNING registrado_em";
        }
        let mut conn = connection(&self.pool).await?;
        conn.transaction(async |conn| {
            // Shared locks on the registrations: an anonymisation under way finishes first, and
            // then nothing is held under the CPF any more.
            let person: PersonState = CONSENT_SUBJECT
                .query()
                .bind::<Text, _>(cpf.as_str())
                .get_result(conn)
                .await?;
            if !person.held {
                return Ok(ConsentOutcome::NothingHeld);
            }
            if person.blocked && consent.granted {
                return Ok(ConsentOutcome::Blocked);
            }
            let recorded: RecordedConsent = INSERT_PRIVACY_CONSENTS
                .query()
                .bind::<Text, _>(cpf.as_str())
                .bind::<Text, _>(consent.purpose.code())
                .bind::<Bool, _>(consent.granted)
                .bind::<Text, _>(by)
                .bind::<Text, _>(consent.channel())
                .bind::<Nullable<Jsonb>, _>(&evidence)
                .get_result(conn)
                .await?;
            Ok(ConsentOutcome::Recorded(ConsentRecord {
                purpose: consent.purpose,
                granted: consent.granted,
                at: recorded.registrado_em,
                by: by.to_owned(),
                channel: consent.channel().to_owned(),
                evidence: evidence.clone(),
            }))
        })
        .await
        .map_err(query_error)
    }

    async fn record_redaction(&self, platform_customer: &str, error: Option<String>) -> Result<(), StoreError> {
        statement! {
            UPDATE_PAYMENT_CUSTOMER_REDACTIONS = "UPDATE payment_customer_redactions SET answered_at = now(), error = $2 WHERE platform_customer_id = $1";
        }
        let mut conn = connection(&self.pool).await?;
        UPDATE_PAYMENT_CUSTOMER_REDACTIONS
            .query()
            .bind::<Text, _>(platform_customer)
            .bind::<Nullable<Text>, _>(error)
            .execute(&mut conn)
            .await
            .map_err(query_error)?;
        Ok(())
    }

    async fn anonymize(
        &self,
        cpf: &Cpf,
        by: &str,
        now: DateTime<Utc>,
        policy: HoldPolicy,
    ) -> Result<AnonymizeOutcome, StoreError> {
        let mut conn = connection(&self.pool).await?;
        let sealer = self.sealer.clone();
        match conn
            .transaction(async |conn| anonymize_in(conn, &sealer, cpf, by, now, policy).await)
            .await
        {
            Ok(outcome) => Ok(outcome),
            Err(Stop::Blocked(open)) => Ok(AnonymizeOutcome::Blocked(open)),
            Err(Stop::Db(e)) => Err(query_error(e)),
        }
    }
}
