//! Débito em conta's authorisations and files (issue 46): the domain's `DebitStore`. A remessa is
//! built and recorded in one transaction under its agreement's row lock (the NSA advanced once),
//! its charges claimed with `FOR UPDATE SKIP LOCKED`; a retorno is recorded by its SHA-256 and each
//! debit's result lands on its (charge, attempt) item once, so the same file read twice, or two
//! files reporting one debit, change a charge once.

use crate::billing::{first_presented, tell_changes};
use crate::pool::{PgPool, connection, query_error};
use crate::read_model::parts::billing::ChargePart;
use crate::rows::stored;
use crate::schema::{charges, contract_billings as billings, debit_agreements as agreements, debit_files as files};
use crate::statement::statement;
use async_trait::async_trait;
use chrono::{DateTime, NaiveDate, NaiveTime, Utc};
use diesel::prelude::*;
use diesel::sql_types::{Array, BigInt, Date, Integer, Nullable, Text, Timestamptz};
use diesel_async::{AsyncConnection, AsyncPgConnection, RunQueryDsl};
use domain::billing::cnab150::{Agreement, DebitOrder, DebitResult, DebitReturn, Remessa, Retorno};
use domain::billing::debits::{
    DebitFile, DebitStore, RefusedReturn, RetornoSummary, failure_reason, paid_amount_mismatch, parse_reference,
    reference, result_of,
};
use domain::billing::revocation::{AuthorizationStatus, AuthorizationStore, RevocationOutcome};
use domain::billing::{ChargeStatus, DunningPolicy, RUN_ACTOR, next_attempt};
use domain::proposals::requests::NewCustomerRequest;
use domain::store::StoreError;
use sha2::{Digest, Sha256};

/// Why a charge cancelled with its contract shows as paid: the bank debited it afterwards.
const PAID_AFTER_THE_END: &str = "debitada pelo banco depois do encerramento do contrato: a devolver";

#[derive(Clone)]
pub struct PgDebits {
    pool: PgPool,
}

impl PgDebits {
    pub fn new(pool: PgPool) -> Self {
        Self { pool }
    }
}

#[derive(QueryableByName)]
struct DueDebit {
    #[diesel(sql_type = BigInt)]
    id: i64,
    #[diesel(sql_type = BigInt)]
    id_proposta: i64,
    #[diesel(sql_type = Date)]
    dia: NaiveDate,
    #[diesel(sql_type = BigInt)]
    valor: i64,
    #[diesel(sql_type = Integer)]
    tentativas: i32,
    #[diesel(sql_type = Nullable<Text>)]
    agencia: Option<String>,
    #[diesel(sql_type = Nullable<Text>)]
    conta: Option<String>,
}

fn hex_sha256(text: &str) -> String {
    Sha256::digest(text.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

async fn build_remessa(
    conn: &mut AsyncPgConnection,
    agreement: &Agreement,
    until: NaiveDate,
    on: NaiveDate,
    at: DateTime<Utc>,
) -> QueryResult<Option<Remessa>> {
    statement! {
        FILE_ITEMS = "INSERT INTO debit_file_items (id_cobranca, tentativa, id_remessa, data_debito, valor) \
             SELECT i.id, i.tentativa, $5, i.dia, i.valor FROM unnest($1::int8[], $2::int4[], $3::date[], $4::int8[]) AS i (id, tentativa, dia, valor)";
    }
    statement! {
        LOCK_CHARGES => DueDebit = "SELECT c.id, c.id_proposta, greatest(coalesce(c.proxima_tentativa, c.vencimento), $3) AS dia, c.valor, \
                 c.tentativas, pp.agencia, pp.conta \
             FROM charges c \
             JOIN debit_authorizations a ON a.id_proposta = c.id_proposta \
             JOIN proposal_payments pp ON pp.id_proposta = c.id_proposta \
             WHERE c.status = 'aberta' AND c.metodo = 'DÉBITO EM CONTA' AND a.situacao = 'ativa' AND a.banco = $1 \
               AND coalesce(c.proxima_tentativa, c.vencimento) <= $2 \
               AND NOT EXISTS (SELECT 1 FROM debit_file_items i WHERE i.id_cobranca = c.id AND i.codigo_retorno IS NULL) \
             ORDER BY c.id FOR UPDATE OF c SKIP LOCKED";
    }
    diesel::insert_into(agreements::table)
        .values((
            agreements::banco.eq(&agreement.bank),
            agreements::convenio.eq(&agreement.code),
        ))
        .on_conflict_do_nothing()
        .execute(conn)
        .await?;
    let last: i32 = agreements::table
        .find((&agreement.bank, &agreement.code))
        .select(agreements::ultimo_nsa)
        .for_update()
        .first(conn)
        .await?;
    // A debit's day is its retry's, else its due date; never before the file's day.
    let due: Vec<DueDebit> = LOCK_CHARGES
        .query()
        .bind::<Text, _>(&agreement.bank)
        .bind::<Date, _>(until)
        .bind::<Date, _>(on)
        .load(conn)
        .await?;
    if due.is_empty() {
        return Ok(None);
    }
    let nsa = last + 1;
    let remessa = Remessa {
        agreement: agreement.clone(),
        nsa: u32::try_from(nsa).unwrap_or_default(),
        generated_on: on,
        debits: due
            .iter()
            .map(|d| DebitOrder {
                client: d.id_proposta.to_string(),
                agency: d.agencia.clone().unwrap_or_default(),
                account: d.conta.clone().unwrap_or_default(),
                date: d.dia,
                amount: d.valor,
                reference: reference(d.id, d.tentativas + 1),
            })
            .collect(),
    };
    let text = remessa.text();
    let file_id: i64 = diesel::insert_into(files::table)
        .values((
            files::tipo.eq("remessa"),
            files::banco.eq(&agreement.bank),
            files::convenio.eq(&agreement.code),
            files::nsa.eq(nsa),
            files::nome.eq(remessa.file_name()),
            files::registros.eq(i32::try_from(due.len() + 2).unwrap_or(i32::MAX)),
            files::valor_total.eq(remessa.total()),
            files::sha256.eq(hex_sha256(&text)),
            files::conteudo.eq(&text),
            files::em.eq(at),
        ))
        .returning(files::id)
        .get_result(conn)
        .await?;
    diesel::update(agreements::table.find((&agreement.bank, &agreement.code)))
        .set(agreements::ultimo_nsa.eq(nsa))
        .execute(conn)
        .await?;
    let ids: Vec<i64> = due.iter().map(|d| d.id).collect();
    let attempts: Vec<i32> = due.iter().map(|d| d.tentativas + 1).collect();
    let days: Vec<NaiveDate> = due.iter().map(|d| d.dia).collect();
    let amounts: Vec<i64> = due.iter().map(|d| d.valor).collect();
    FILE_ITEMS
        .query()
        .bind::<Array<BigInt>, _>(&ids)
        .bind::<Array<Integer>, _>(&attempts)
        .bind::<Array<Date>, _>(&days)
        .bind::<Array<BigInt>, _>(&amounts)
        .bind::<BigInt, _>(file_id)
        .execute(conn)
        .await?;
    let changed: Vec<(i64, ChargePart)> = diesel::update(charges::table.filter(charges::id.eq_any(&ids)))
        .set((
            charges::tentativas.eq(charges::tentativas + 1),
            charges::proxima_tentativa.eq(None::<NaiveDate>),
            charges::id_externo.eq(format!("CNAB150 {}/{} NSA {nsa}", agreement.bank, agreement.code)),
            // Presented by its first remessa (decision 265); a retry keeps that day.
            charges::apresentada_em.eq(first_presented(charges::apresentada_em, at)),
            charges::alterada_em.eq(at),
            charges::alterada_por.eq(RUN_ACTOR),
        ))
        .returning((charges::id_proposta, ChargePart::as_returning()))
        .get_results(conn)
        .await?;
    tell_changes(conn, changed, at).await?;
    Ok(Some(remessa))
}

/// The charge a return line names, locked: its contract, status, attempts, due date and the
/// contract's retry days.
type ChargeState = (i64, String, i32, NaiveDate, Vec<Option<i32>>);

/// Applies one debit's result to its charge; answers the charge as it changed, if it did.
async fn apply_result(
    conn: &mut AsyncPgConnection,
    (charge_id, attempt): (i64, i32),
    debit: &DebitReturn,
    today: NaiveDate,
    at: DateTime<Utc>,
) -> QueryResult<(DebitResult, Option<(i64, ChargePart)>)> {
    statement! {
        REFUSED_BY_BANK = "UPDATE debit_authorizations SET situacao = 'recusada', situacao_em = $2, motivo = $3, situacao_por = 'banco' \
                     WHERE id_proposta = $1 AND situacao = 'ativa'";
    }
    let (code, debited_on, amount) = (debit.code.as_str(), debit.date, debit.amount);
    let (proposal_id, status, attempts, due, retry_days): ChargeState = charges::table
        .inner_join(billings::table)
        .filter(charges::id.eq(charge_id))
        .select((
            charges::id_proposta,
            charges::status,
            charges::tentativas,
            charges::vencimento,
            billings::retentativas_dias,
        ))
        .for_update()
        .first(conn)
        .await?;
    let status = stored(ChargeStatus::from_stored(&status, "charges", "status"))?;
    let result = result_of(code);
    let reason = failure_reason(code);
    let change = diesel::update(charges::table.find(charge_id));
    let updated = match result {
        // Money the bank moved is recorded whatever the charge's state: a debit sent before the
        // contract ended and paid after it is paid, and marked to be given back.
        DebitResult::Paid if status != ChargeStatus::Paid => {
            let reason = (status == ChargeStatus::Cancelled).then_some(PAID_AFTER_THE_END);
            let paid_at = debited_on
                .and_time(NaiveTime::MIN)
                .and_local_timezone(domain::contract::formats::brasilia())
                .single()
                .map_or(at, |t| t.with_timezone(&Utc));
            Some(
                change
                    .set((
                        charges::status.eq(ChargeStatus::Paid.as_str()),
                        charges::pago_em.eq(paid_at),
                        charges::valor_pago.eq(amount),
                        charges::proxima_tentativa.eq(None::<NaiveDate>),
                        charges::motivo.eq(reason),
                        charges::alterada_em.eq(at),
                        charges::alterada_por.eq(RUN_ACTOR),
                    ))
                    .returning(ChargePart::as_returning())
                    .get_result(conn)
                    .await?,
            )
        }
        // A failure moves the charge only while its latest attempt is the one that failed.
        DebitResult::Failed if status == ChargeStatus::Open && attempts == attempt => {
            let policy = DunningPolicy {
                retry_days: retry_days
                    .into_iter()
                    .flatten()
                    .filter_map(|d| u32::try_from(d).ok())
                    .collect(),
                ..DunningPolicy::default()
            };
            let next = next_attempt(&policy, due, u32::try_from(attempt).unwrap_or(1), today);
            let new_status = if next.is_some() {
                ChargeStatus::Open
            } else {
                ChargeStatus::Failed
            };
            Some(
                change
                    .set((
                        charges::status.eq(new_status.as_str()),
                        charges::proxima_tentativa.eq(next),
                        charges::motivo.eq(&reason),
                        charges::alterada_em.eq(at),
                        charges::alterada_por.eq(RUN_ACTOR),
                    ))
                    .returning(ChargePart::as_returning())
                    .get_result(conn)
                    .await?,
            )
        }
        DebitResult::AuthorizationRefused => {
            REFUSED_BY_BANK
                .query()
                .bind::<BigInt, _>(proposal_id)
                .bind::<Timestamptz, _>(at)
                .bind::<Text, _>(&reason)
                .execute(conn)
                .await?;
            if status == ChargeStatus::Open {
                Some(
                    change
                        .set((
                            charges::status.eq(ChargeStatus::Failed.as_str()),
                            charges::proxima_tentativa.eq(None::<NaiveDate>),
                            charges::motivo.eq(&reason),
                            charges::alterada_em.eq(at),
                            charges::alterada_por.eq(RUN_ACTOR),
                        ))
                        .returning(ChargePart::as_returning())
                        .get_result(conn)
                        .await?,
                )
            } else {
                None
            }
        }
        _ => None,
    };
    Ok((result, updated.map(|part| (proposal_id, part))))
}

async fn read_retorno(
    conn: &mut AsyncPgConnection,
    retorno: &Retorno,
    name: &str,
    sha256: &str,
    today: NaiveDate,
    at: DateTime<Utc>,
) -> QueryResult<RetornoSummary> {
    statement! {
        FORGET_ANSWERED_FILES = "UPDATE debit_files f SET conteudo = NULL WHERE f.tipo = 'remessa' AND f.conteudo IS NOT NULL \
             AND NOT EXISTS (SELECT 1 FROM debit_file_items i WHERE i.id_remessa = f.id AND i.codigo_retorno IS NULL)";
    }
    statement! {
        REVOKED_BY_BANK = "UPDATE debit_authorizations SET situacao = 'revogada', situacao_em = $2, situacao_por = 'banco', \
                     motivo = 'exclusão do débito automático informada pelo banco' \
                 WHERE id_proposta = $1 AND situacao = 'ativa' AND banco = $3";
    }
    statement! {
        ITEM_ANSWERED = "UPDATE debit_file_items SET codigo_retorno = $3, id_retorno = $4, lido_em = $5 \
                 WHERE id_cobranca = $1 AND tentativa = $2";
    }
    statement! {
        LOCK_DEBIT_FILE_ITEMS => SentItem = "SELECT i.valor, i.codigo_retorno FROM debit_file_items i \
                 JOIN debit_files f ON f.id = i.id_remessa \
                 WHERE i.id_cobranca = $1 AND i.tentativa = $2 AND f.banco = $3 AND f.convenio = $4 \
                 FOR UPDATE OF i";
    }
    statement! {
        RECORD_RETURN_FILE => FileId = "INSERT INTO debit_files (tipo, banco, convenio, nsa, nome, registros, valor_total, sha256, em) \
             VALUES ('retorno', $1, $2, $3, $4, $5, $6, $7, $8) \
             ON CONFLICT (sha256) WHERE tipo = 'retorno' DO NOTHING RETURNING id";
    }
    let total: i64 = retorno.debits.iter().map(|d| d.amount).sum();
    let records = retorno.opt_changes.len() + retorno.debits.len() + retorno.confirmed.len() + 2;
    let file: Option<i64> = RECORD_RETURN_FILE
        .query()
        .bind::<Text, _>(&retorno.bank)
        .bind::<Text, _>(&retorno.agreement)
        .bind::<Integer, _>(i32::try_from(retorno.nsa).unwrap_or(i32::MAX))
        .bind::<Text, _>(name)
        .bind::<Integer, _>(i32::try_from(records).unwrap_or(i32::MAX))
        .bind::<BigInt, _>(total)
        .bind::<Text, _>(sha256)
        .bind::<Timestamptz, _>(at)
        .get_result::<FileId>(conn)
        .await
        .optional()?
        .map(|f| f.id);
    let Some(file) = file else {
        return Ok(RetornoSummary {
            already_read: true,
            ..RetornoSummary::default()
        });
    };
    let mut summary = RetornoSummary::default();
    let mut changed = Vec::new();
    for debit in &retorno.debits {
        let Some((charge_id, attempt)) = parse_reference(&debit.reference) else {
            summary.unknown += 1;
            continue;
        };
        // The debit as this file's bank and agreement were sent it, under its row lock.
        let sent: Option<SentItem> = LOCK_DEBIT_FILE_ITEMS
            .query()
            .bind::<BigInt, _>(charge_id)
            .bind::<Integer, _>(attempt)
            .bind::<Text, _>(&retorno.bank)
            .bind::<Text, _>(&retorno.agreement)
            .get_result(conn)
            .await
            .optional()?;
        let Some(sent) = sent else {
            summary.unknown += 1;
            continue;
        };
        if sent.codigo_retorno.is_some() {
            summary.already_applied += 1;
            continue;
        }
        if result_of(&debit.code) == DebitResult::Paid
            && let Some(reason) = paid_amount_mismatch(sent.valor, debit.amount)
        {
            summary.refused.push(RefusedReturn {
                line: debit.line,
                reference: debit.reference.clone(),
                reason,
            });
            continue;
        }
        ITEM_ANSWERED
            .query()
            .bind::<BigInt, _>(charge_id)
            .bind::<Integer, _>(attempt)
            .bind::<Text, _>(&debit.code)
            .bind::<BigInt, _>(file)
            .bind::<Timestamptz, _>(at)
            .execute(conn)
            .await?;
        let (result, charge) = apply_result(conn, (charge_id, attempt), debit, today, at).await?;
        match result {
            DebitResult::Paid => summary.paid += 1,
            DebitResult::Failed => summary.failed += 1,
            DebitResult::AuthorizationRefused => summary.authorizations_refused += 1,
            DebitResult::NoMove => {}
        }
        changed.extend(charge);
    }
    for opt in retorno.opt_changes.iter().filter(|o| !o.included) {
        let Ok(proposal_id) = opt.client.parse::<i64>() else {
            continue;
        };
        // Only the file's bank can report its customer's opt-out.
        summary.revoked += REVOKED_BY_BANK
            .query()
            .bind::<BigInt, _>(proposal_id)
            .bind::<Timestamptz, _>(at)
            .bind::<Text, _>(&retorno.bank)
            .execute(conn)
            .await?;
    }
    let confirmed: Vec<i32> = retorno
        .confirmed
        .iter()
        .filter_map(|n| i32::try_from(*n).ok())
        .collect();
    diesel::update(
        files::table
            .filter(files::tipo.eq("remessa"))
            .filter(files::banco.eq(&retorno.bank))
            .filter(files::convenio.eq(&retorno.agreement))
            .filter(files::nsa.eq_any(&confirmed))
            .filter(files::confirmada_em.is_null()),
    )
    .set(files::confirmada_em.eq(at))
    .execute(conn)
    .await?;
    // A remessa's text (its accounts) is kept only while a debit of it awaits its return: to
    // send it again. Answered whole, only its digest and counts stay (LGPD art. 6, III).
    FORGET_ANSWERED_FILES.query().execute(conn).await?;
    summary.touched = tell_changes(conn, changed, at).await?;
    let told: Vec<String> = [
        (summary.paid, "paga(s)"),
        (summary.failed, "falha(s)"),
        (summary.authorizations_refused, "autorização(ões) recusada(s)"),
        (summary.already_applied, "já aplicada(s)"),
        (summary.unknown, "desconhecida(s)"),
        (summary.revoked, "revogação(ões)"),
        (summary.refused.len(), "recusada(s) por valor divergente"),
    ]
    .iter()
    .filter(|(n, _)| *n > 0)
    .map(|(n, what)| format!("{n} {what}"))
    .collect();
    let told = if told.is_empty() {
        "nada aplicado".to_owned()
    } else {
        told.join(", ")
    };
    diesel::update(files::table.find(file))
        .set(files::resumo.eq(told))
        .execute(conn)
        .await?;
    Ok(summary)
}

#[derive(QueryableByName)]
struct SentItem {
    #[diesel(sql_type = BigInt)]
    valor: i64,
    #[diesel(sql_type = Nullable<Text>)]
    codigo_retorno: Option<String>,
}

#[derive(QueryableByName)]
struct FileId {
    #[diesel(sql_type = BigInt)]
    id: i64,
}

#[async_trait]
impl DebitStore for PgDebits {
    async fn remessa(
        &self,
        agreement: &Agreement,
        until: NaiveDate,
        on: NaiveDate,
        at: DateTime<Utc>,
    ) -> Result<Option<Remessa>, StoreError> {
        let mut conn = connection(&self.pool).await?;
        conn.transaction(async |conn| build_remessa(conn, agreement, until, on, at).await)
            .await
            .map_err(query_error)
    }

    async fn apply_retorno(
        &self,
        retorno: &Retorno,
        name: &str,
        sha256: &str,
        today: NaiveDate,
        at: DateTime<Utc>,
    ) -> Result<RetornoSummary, StoreError> {
        let mut conn = connection(&self.pool).await?;
        conn.transaction(async |conn| read_retorno(conn, retorno, name, sha256, today, at).await)
            .await
            .map_err(query_error)
    }

    async fn files(&self, limit: i64) -> Result<Vec<DebitFile>, StoreError> {
        let mut conn = connection(&self.pool).await?;
        type FileRow = (
            String,
            String,
            String,
            i32,
            String,
            i32,
            i64,
            String,
            DateTime<Utc>,
            Option<DateTime<Utc>>,
            Option<String>,
        );
        let rows: Vec<FileRow> = files::table
            .order(files::id.desc())
            .limit(limit)
            .select((
                files::tipo,
                files::banco,
                files::convenio,
                files::nsa,
                files::nome,
                files::registros,
                files::valor_total,
                files::sha256,
                files::em,
                files::confirmada_em,
                files::resumo,
            ))
            .load(&mut conn)
            .await
            .map_err(query_error)?;
        Ok(rows
            .into_iter()
            .map(
                |(kind, bank, agreement, nsa, name, records, total, sha256, at, confirmed, summary)| DebitFile {
                    note: match kind.as_str() {
                        "remessa" => Some(match confirmed {
                            Some(when) => format!("processada pelo banco (confirmada em {})", when.format("%d/%m/%Y")),
                            None => "aguardando o retorno".to_owned(),
                        }),
                        _ => summary,
                    },
                    kind,
                    bank,
                    agreement,
                    nsa,
                    name,
                    records,
                    total,
                    sha256,
                    at,
                },
            )
            .collect())
    }
}

#[derive(QueryableByName)]
struct AuthorizationRow {
    #[diesel(sql_type = Text)]
    situacao: String,
}

#[async_trait]
impl AuthorizationStore for PgDebits {
    async fn revoke(&self, proposal_id: i64, request: &NewCustomerRequest) -> Result<RevocationOutcome, StoreError> {
        statement! {
            REVOKE_AT_CUSTOMERS_REQUEST = "UPDATE debit_authorizations SET situacao = 'revogada', situacao_em = $2, situacao_por = $3, \
                         motivo = left('revogada a pedido do cliente: ' || $4, 200) \
                     WHERE id_proposta = $1";
        }
        statement! {
            LOCK_DEBIT_AUTHORIZATIONS => AuthorizationRow = "SELECT situacao FROM debit_authorizations WHERE id_proposta = $1 FOR UPDATE";
        }
        let mut conn = connection(&self.pool).await?;
        conn.transaction(async |conn| {
            let current: Option<AuthorizationRow> = LOCK_DEBIT_AUTHORIZATIONS
                .query()
                .bind::<BigInt, _>(proposal_id)
                .get_result(conn)
                .await
                .optional()?;
            let Some(current) = current else {
                return Ok(RevocationOutcome::NoAuthorization);
            };
            match AuthorizationStatus::parse(&current.situacao) {
                Some(AuthorizationStatus::Active) => {}
                Some(other) => return Ok(RevocationOutcome::NotActive(other)),
                None => {
                    return Err(diesel::result::Error::DeserializationError(
                        format!("debit_authorizations.situacao: {}", current.situacao).into(),
                    ));
                }
            }
            REVOKE_AT_CUSTOMERS_REQUEST
                .query()
                .bind::<BigInt, _>(proposal_id)
                .bind::<Timestamptz, _>(request.at)
                .bind::<Text, _>(&request.requested_by)
                .bind::<Text, _>(&request.reason)
                .execute(conn)
                .await?;
            let protocol = crate::customer_requests::record_request(conn, proposal_id, request).await?;
            Ok(RevocationOutcome::Revoked(protocol))
        })
        .await
        .map_err(query_error)
    }
}
