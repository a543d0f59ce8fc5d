//! The acceptance clock (issue 45): each product's policy, each proposal's clock (started and
//! closed by every status move, in the move's transaction), the sweep that settles the due ones,
//! the requests for documents that suspend them, and the development clock's shared shift.

use crate::event_outbox;
use crate::pool::{PgPool, connection, names_no_row, query_error};
use crate::read_model;
use crate::schema::{
    products, proposal_acceptances as clocks, proposal_pending_files as files, proposal_pending_requests as requests,
    proposals, sandbox_clock, user_applications, users,
};
use crate::statement::statement;
use crate::unit_of_work::change_error::ChangeError;
use crate::unit_of_work::status_change::apply_change;
use async_trait::async_trait;
use chrono::{DateTime, Utc};
use diesel::prelude::*;
use diesel::result::Error as DieselError;
use diesel_async::{AsyncConnection, AsyncPgConnection, RunQueryDsl};
use domain::acceptance::pending::{DocumentsRequest, PROPONENT_ACTOR, PendingAnswerInput, PendingRecipient};
use domain::acceptance::ports::{
    AcceptanceStore, LinkedRequest, PendingOpened, PendingResumed, PendingStoreError, ProponentAddress, TacitMove,
};
use domain::acceptance::queue::{Assignment, PendingFileContent, PendingState, QueueEntry, QueuePage, QueueQuery};
use domain::acceptance::{AcceptanceClock, AcceptancePolicy, Settled, SweepAction};
use domain::clock::ClockShiftStore;
use domain::proposals::lifecycle::StatusChange;
use domain::scope::Scope;
use domain::store::StoreError;
use domain::values::Flow;
use domain::values::{Email, ProposalStatus};

/// Why a pending request's transaction stopped: diesel's error, or a refusal (nothing written).
enum PendingTxError {
    Db(DieselError),
    Refused(PendingStoreError),
}

impl From<DieselError> for PendingTxError {
    fn from(e: DieselError) -> Self {
        PendingTxError::Db(e)
    }
}

impl From<PendingTxError> for PendingStoreError {
    fn from(e: PendingTxError) -> Self {
        match e {
            PendingTxError::Db(e) => PendingStoreError::Store(query_error(e)),
            PendingTxError::Refused(refusal) => refusal,
        }
    }
}

/// The proposal with this identifier, its row locked (as a status move locks it), when the scope
/// sees it: its id and status.
async fn locked_proposal(
    conn: &mut AsyncPgConnection,
    identifier: &str,
    scope: Scope,
) -> Result<(i64, ProposalStatus), PendingTxError> {
    let found: Option<(i64, String, Option<i64>, String)> = proposals::table
        .filter(proposals::identificador.eq(identifier))
        .select((
            proposals::id,
            proposals::status,
            proposals::id_parceiro,
            proposals::fluxo,
        ))
        .for_update()
        .first(conn)
        .await
        .optional()?;
    let Some((id, status, partner, flow)) = found else {
        return Err(PendingTxError::Refused(PendingStoreError::ProposalNotFound));
    };
    if !within(scope, partner, &flow) {
        return Err(PendingTxError::Refused(PendingStoreError::ProposalNotFound));
    }
    let status = crate::rows::stored(ProposalStatus::from_stored(&status, "proposals", "status"))?;
    Ok((id, status))
}

/// Whether a proposal of this partner and flow is within the caller's scope.
fn within(scope: Scope, partner: Option<i64>, flow: &str) -> bool {
    match scope {
        Scope::Everything => true,
        Scope::Ecommerce => flow == Flow::Ecommerce.as_str(),
        Scope::Partner { partner_id, .. } => partner == Some(partner_id) && flow == Flow::Partner.as_str(),
    }
}

/// A clock's columns: received, deadline, tacit, suspensions allowed, suspended, decided, overdue,
/// review target.
type KeptClock = (
    DateTime<Utc>,
    DateTime<Utc>,
    bool,
    i32,
    Option<DateTime<Utc>>,
    Option<DateTime<Utc>>,
    Option<DateTime<Utc>>,
    Option<DateTime<Utc>>,
);

/// The columns of [`KeptClock`], in its order.
macro_rules! kept_clock_columns {
    () => {
        (
            clocks::recebida_em,
            clocks::prazo_em,
            clocks::tacito,
            clocks::suspensoes_permitidas,
            clocks::suspensa_desde,
            clocks::decidida_em,
            clocks::vencida_em,
            clocks::revisao_em,
        )
    };
}

fn clock_from(
    (received_at, deadline, tacit, allowed, suspended_since, decided_at, overdue_since, review_by): KeptClock,
) -> AcceptanceClock {
    AcceptanceClock {
        received_at,
        deadline,
        tacit,
        suspensions_allowed: u32::try_from(allowed).unwrap_or(0),
        suspended_since,
        decided_at,
        overdue_since,
        review_by,
    }
}

/// The proposal's clock as kept, under the proposal's row lock.
async fn clock_of(conn: &mut AsyncPgConnection, proposal_id: i64) -> QueryResult<Option<AcceptanceClock>> {
    let row: Option<KeptClock> = clocks::table
        .find(proposal_id)
        .select(kept_clock_columns!())
        .first(conn)
        .await
        .optional()?;
    Ok(row.map(clock_from))
}

/// The queue's statement: the undecided clocks after a position of the queue's order (the overdue
/// first, then by deadline), each with its latest request's state (`NULL`: none; `TRUE`: open).
/// One constant text per filter, so that each keeps its prepared plan and its index.
macro_rules! queue_statement {
    ($filter:literal) => {
        concat!(
            "SELECT a.id_proposta, p.identificador, pc.nome_completo, pr.nome AS produto, p.valor, \
                    a.recebida_em, a.prazo_em, a.tacito, a.suspensa_desde, \
                    (a.vencida_em IS NOT NULL) AS vencida, a.analista, \
                    (SELECT r.respondida_em IS NULL FROM proposal_pending_requests r \
                     WHERE r.id_proposta = a.id_proposta ORDER BY r.id DESC LIMIT 1) AS pendencia_aberta \
             FROM proposal_acceptances a \
             JOIN proposals p ON p.id = a.id_proposta \
             JOIN proposal_customers pc ON pc.id_proposta = a.id_proposta \
             JOIN products pr ON pr.id = p.id_produto \
             WHERE a.decidida_em IS NULL ",
            $filter,
            " AND ((a.vencida_em IS NULL), a.prazo_em, a.id_proposta) > ($2, $3, $4) \
             ORDER BY (a.vencida_em IS NULL), a.prazo_em, a.id_proposta \
             LIMIT $5"
        )
    };
}

statement! {
    QUEUE_OF_ANYONE => QueueRow = queue_statement!("AND $1::text IS NULL");
}
statement! {
    QUEUE_OF_NOBODY => QueueRow = queue_statement!("AND a.analista IS NULL AND $1::text IS NULL");
}
statement! {
    QUEUE_OF_ANALYST => QueueRow = queue_statement!("AND a.analista = $1");
}

#[derive(QueryableByName)]
struct QueueRow {
    #[diesel(sql_type = diesel::sql_types::BigInt)]
    id_proposta: i64,
    #[diesel(sql_type = diesel::sql_types::Text)]
    identificador: String,
    #[diesel(sql_type = diesel::sql_types::Text)]
    nome_completo: String,
    #[diesel(sql_type = diesel::sql_types::Text)]
    produto: String,
    #[diesel(sql_type = diesel::sql_types::BigInt)]
    valor: i64,
    #[diesel(sql_type = diesel::sql_types::Timestamptz)]
    recebida_em: DateTime<Utc>,
    #[diesel(sql_type = diesel::sql_types::Timestamptz)]
    prazo_em: DateTime<Utc>,
    #[diesel(sql_type = diesel::sql_types::Bool)]
    tacito: bool,
    #[diesel(sql_type = diesel::sql_types::Nullable<diesel::sql_types::Timestamptz>)]
    suspensa_desde: Option<DateTime<Utc>>,
    #[diesel(sql_type = diesel::sql_types::Bool)]
    vencida: bool,
    #[diesel(sql_type = diesel::sql_types::Nullable<diesel::sql_types::Text>)]
    analista: Option<String>,
    #[diesel(sql_type = diesel::sql_types::Nullable<diesel::sql_types::Bool>)]
    pendencia_aberta: Option<bool>,
}

impl From<QueueRow> for QueueEntry {
    fn from(r: QueueRow) -> Self {
        QueueEntry {
            proposal_id: r.id_proposta,
            identifier: r.identificador,
            customer_name: r.nome_completo,
            product_name: r.produto,
            value_cents: r.valor,
            received_at: r.recebida_em,
            deadline: r.prazo_em,
            tacit: r.tacito,
            suspended_since: r.suspensa_desde,
            overdue: r.vencida,
            analyst: r.analista,
            pending: match r.pendencia_aberta {
                None => PendingState::None,
                Some(true) => PendingState::Open,
                Some(false) => PendingState::Answered,
            },
        }
    }
}

/// The back office's active users, whom a proposal may be assigned to.
async fn analysts(conn: &mut AsyncPgConnection) -> QueryResult<Vec<String>> {
    users::table
        .inner_join(user_applications::table)
        .filter(user_applications::application.eq(domain::values::Application::BackOffice.as_str()))
        .filter(users::disabled_at.is_null())
        .select(users::email)
        .order(users::email)
        .load(conn)
        .await
}

#[derive(Clone)]
pub struct PgAcceptance {
    pool: PgPool,
}

impl PgAcceptance {
    pub fn new(pool: PgPool) -> Self {
        Self { pool }
    }
}

type LinkedRow = (
    i64,
    String,
    String,
    String,
    Vec<Option<String>>,
    Option<String>,
    DateTime<Utc>,
    Option<DateTime<Utc>>,
);

/// The e-mail the proposal's copy of the customer keeps (the one the proposal was sold with).
async fn proponent_email(conn: &mut AsyncPgConnection, proposal_id: i64) -> QueryResult<Option<String>> {
    use crate::schema::proposal_customers as copies;
    Ok(copies::table
        .filter(copies::id_proposta.eq(proposal_id))
        .select(copies::email)
        .first::<Option<String>>(conn)
        .await
        .optional()?
        .flatten())
}

/// Records the answer `by` gave to the open request `pending_id` of the locked proposal
/// (`proposal`: its id, identifier and status), meant for `recipient`: its files stored, the clock
/// resumed with its deadline moved by the time it stood, the link (if any) spent and
/// `PENDENCIA_RESPONDIDA` queued.
async fn record_answer(
    conn: &mut AsyncPgConnection,
    (proposal_id, identifier, status): (i64, &str, ProposalStatus),
    pending_id: i64,
    recipient: PendingRecipient,
    answer: &PendingAnswerInput,
    answered_by: &str,
    at: DateTime<Utc>,
) -> Result<PendingResumed, PendingTxError> {
    let found: Option<(Option<DateTime<Utc>>, String)> = requests::table
        .filter(requests::id.eq(pending_id))
        .filter(requests::id_proposta.eq(proposal_id))
        .select((requests::respondida_em, requests::destinatario))
        .first(conn)
        .await
        .optional()?;
    let Some((answered, meant_for)) = found else {
        return Err(PendingTxError::Refused(PendingStoreError::RequestNotFound));
    };
    if meant_for != recipient.as_str() {
        // Only the seller's route can reach a request meant for someone else.
        return Err(PendingTxError::Refused(PendingStoreError::ProponentAnswers));
    }
    if answered.is_some() {
        return Err(PendingTxError::Refused(PendingStoreError::AlreadyAnswered));
    }
    let clock = match clock_of(conn, proposal_id).await? {
        Some(clock) if status == ProposalStatus::InAnalysis => clock,
        _ => return Err(PendingTxError::Refused(PendingStoreError::NotInAnalysis(status))),
    };
    let resumed = clock.resumed(at);
    let deadline = resumed.deadline;
    diesel::update(requests::table.find(pending_id))
        .set((
            requests::resposta.eq(&answer.note),
            requests::respondida_por.eq(answered_by),
            requests::respondida_em.eq(at),
        ))
        .execute(conn)
        .await?;
    for file in &answer.files {
        diesel::insert_into(files::table)
            .values((
                files::id_pendencia.eq(pending_id),
                files::nome.eq(&file.name),
                files::tipo.eq(file.content_type),
                files::tamanho.eq(i32::try_from(file.bytes.len()).unwrap_or(i32::MAX)),
                files::sha256.eq(&file.sha256),
                files::conteudo.eq(&file.bytes),
                files::enviado_em.eq(at),
            ))
            .execute(conn)
            .await?;
    }
    diesel::update(clocks::table.find(proposal_id))
        .set((
            clocks::suspensa_desde.eq(resumed.suspended_since),
            clocks::prazo_em.eq(deadline),
            clocks::revisao_em.eq(resumed.review_by),
            clocks::vencida_em.eq(resumed.overdue_since),
        ))
        .execute(conn)
        .await?;
    let file_count = i64::try_from(answer.files.len()).unwrap_or(i64::MAX);
    event_outbox::queue_pending_answered(conn, proposal_id, pending_id, file_count, at, deadline).await?;
    read_model::write_documents(conn, &[proposal_id]).await?;
    Ok(PendingResumed {
        id: pending_id,
        identifier: identifier.to_owned(),
        deadline,
    })
}

#[async_trait]
impl AcceptanceStore for PgAcceptance {
    async fn set_policy(
        &self,
        product_code: i32,
        policy: &AcceptancePolicy,
        changed_by: &str,
    ) -> Result<bool, StoreError> {
        let mut conn = connection(&self.pool).await?;
        let updated = diesel::update(products::table.filter(products::codigo_produto.eq(product_code)))
            .set((
                products::aceite_dias.eq(i32::try_from(policy.days).unwrap_or(i32::MAX)),
                products::aceite_tacito.eq(policy.tacit),
                products::aceite_suspensoes.eq(i32::try_from(policy.suspensions).unwrap_or(i32::MAX)),
                products::aceite_revisao_dias.eq(policy.review_days.and_then(|d| i32::try_from(d).ok())),
                products::aceite_documentos_vendedor.eq(policy.seller_documents),
                products::alterado_por.eq(changed_by),
                products::alterado_em.eq(diesel::dsl::now),
            ))
            .execute(&mut conn)
            .await
            .map_err(query_error)?;
        Ok(updated > 0)
    }

    async fn policy(&self, product_code: i32) -> Result<Option<AcceptancePolicy>, StoreError> {
        let mut conn = connection(&self.pool).await?;
        let row: Option<(i32, bool, i32, Option<i32>, bool)> = products::table
            .filter(products::codigo_produto.eq(product_code))
            .select((
                products::aceite_dias,
                products::aceite_tacito,
                products::aceite_suspensoes,
                products::aceite_revisao_dias,
                products::aceite_documentos_vendedor,
            ))
            .first(&mut conn)
            .await
            .optional()
            .map_err(query_error)?;
        Ok(row.map(
            |(days, tacit, suspensions, review, seller_documents)| AcceptancePolicy {
                days: u32::try_from(days).unwrap_or_default(),
                tacit,
                suspensions: u32::try_from(suspensions).unwrap_or_default(),
                review_days: review.and_then(|d| u32::try_from(d).ok()),
                seller_documents,
            },
        ))
    }

    async fn settle_due(&self, now: DateTime<Utc>, limit: i64, tacit: &TacitMove) -> Result<Vec<Settled>, StoreError> {
        let mut conn = connection(&self.pool).await?;
        conn.transaction(async |conn| {
            // Claimed with their proposals' rows: another instance's pass (or a request holding a
            // proposal) skips these and takes others, or none.
            // Due: silence accepts it (its deadline passed), or it becomes overdue (its review
            // target, or a deadline silence does not accept, passed while not yet overdue).
            let accepts = clocks::tacito.and(clocks::prazo_em.le(now));
            let becomes_overdue = clocks::vencida_em.is_null().and(
                clocks::revisao_em
                    .le(now)
                    .assume_not_null()
                    .or(clocks::tacito.eq(false).and(clocks::prazo_em.le(now))),
            );
            let due: Vec<(i64, String, KeptClock)> = clocks::table
                .inner_join(proposals::table)
                .filter(clocks::decidida_em.is_null())
                .filter(clocks::suspensa_desde.is_null())
                .filter(accepts.or(becomes_overdue))
                .order(clocks::prazo_em.asc())
                .limit(limit)
                .select((clocks::id_proposta, proposals::identificador, kept_clock_columns!()))
                .for_update()
                .skip_locked()
                .load(conn)
                .await?;
            let mut settled = Vec::with_capacity(due.len());
            let (mut overdue, mut closed) = (Vec::new(), Vec::new());
            for (proposal_id, identifier, kept) in due {
                match clock_from(kept).settlement(now) {
                    Some(SweepAction::Accept) => {}
                    Some(SweepAction::MarkOverdue) => {
                        overdue.push(proposal_id);
                        settled.push(Settled::Overdue { identifier });
                        continue;
                    }
                    None => continue,
                }
                let change = StatusChange {
                    proposal_id,
                    ..tacit.change.clone()
                };
                match apply_change(conn, &change).await {
                    Ok(_) => settled.push(Settled::Accepted { identifier }),
                    // Another operation holds the proposal: the next pass takes it. Nothing was
                    // written for it.
                    Err(ChangeError::Busy(_)) => {}
                    // No longer in analysis (a move that skipped the service): its clock closes.
                    Err(ChangeError::Conflict(_)) => {
                        diesel::update(clocks::table.find(proposal_id))
                            .set(clocks::decidida_em.eq(now))
                            .execute(conn)
                            .await?;
                        closed.push(proposal_id);
                    }
                    Err(ChangeError::Db(e)) => return Err(e),
                    Err(ChangeError::OperationEnded) => return Err(DieselError::RollbackTransaction),
                }
            }
            if !overdue.is_empty() {
                diesel::update(clocks::table.filter(clocks::id_proposta.eq_any(&overdue)))
                    .set(clocks::vencida_em.eq(now))
                    .execute(conn)
                    .await?;
            }
            // The overdue and closed clocks' documents (the accepted ones' moves wrote theirs).
            let mut changed = overdue;
            changed.extend(closed);
            if !changed.is_empty() {
                read_model::write_documents(conn, &changed).await?;
            }
            Ok::<_, DieselError>(settled)
        })
        .await
        .map_err(query_error)
    }

    async fn open_pending(
        &self,
        identifier: &str,
        request: &DocumentsRequest,
        requested_by: &str,
        link_sha256: &str,
        at: DateTime<Utc>,
    ) -> Result<PendingOpened, PendingStoreError> {
        if names_no_row(identifier) {
            return Err(PendingStoreError::ProposalNotFound);
        }
        let mut conn = connection(&self.pool).await?;
        let opened = conn
            .transaction(async |conn| {
                let (proposal_id, status) = locked_proposal(conn, identifier, Scope::Everything).await?;
                let clock = match clock_of(conn, proposal_id).await? {
                    Some(clock) if status == ProposalStatus::InAnalysis => clock,
                    _ => return Err(PendingTxError::Refused(PendingStoreError::NotInAnalysis(status))),
                };
                let used: i64 = requests::table
                    .filter(requests::id_proposta.eq(proposal_id))
                    .count()
                    .get_result(conn)
                    .await?;
                clock
                    .may_suspend(u32::try_from(used).unwrap_or(u32::MAX))
                    .map_err(|refusal| PendingTxError::Refused(refusal.into()))?;
                let (seller_documents, product): (bool, String) = proposals::table
                    .inner_join(products::table.on(products::id.eq(proposals::id_produto)))
                    .filter(proposals::id.eq(proposal_id))
                    .select((products::aceite_documentos_vendedor, products::nome))
                    .first(conn)
                    .await?;
                let recipient = PendingRecipient::of(request.category, seller_documents);
                let proponent = match recipient {
                    PendingRecipient::Seller => None,
                    PendingRecipient::Proponent => Some(ProponentAddress {
                        email: proponent_email(conn, proposal_id).await?,
                        product,
                    }),
                };
                let sent_to = proponent
                    .as_ref()
                    .and_then(|p| p.email.as_deref())
                    .and_then(|e| Email::parse(e).ok())
                    .map(|e| e.masked());
                let id: i64 = diesel::insert_into(requests::table)
                    .values((
                        requests::id_proposta.eq(proposal_id),
                        requests::itens.eq(request.items.iter().map(|i| Some(i.as_str())).collect::<Vec<_>>()),
                        requests::nota.eq(request.note.as_deref()),
                        requests::pedida_por.eq(requested_by),
                        requests::pedida_em.eq(at),
                        requests::categoria_motivo.eq(request.category.as_str()),
                        requests::destinatario.eq(recipient.as_str()),
                        requests::link_sha256.eq((recipient == PendingRecipient::Proponent).then_some(link_sha256)),
                        requests::link_enviado_para.eq(sent_to),
                    ))
                    .returning(requests::id)
                    .get_result(conn)
                    .await?;
                diesel::update(clocks::table.find(proposal_id))
                    .set(clocks::suspensa_desde.eq(at))
                    .execute(conn)
                    .await?;
                event_outbox::queue_pending_opened(conn, proposal_id, id, request, recipient, at).await?;
                read_model::write_documents(conn, &[proposal_id]).await?;
                Ok(PendingOpened {
                    id,
                    identifier: identifier.to_owned(),
                    suspended_since: at,
                    category: request.category,
                    recipient,
                    proponent,
                })
            })
            .await?;
        Ok(opened)
    }

    async fn linked_request(&self, link_sha256: &str) -> Result<LinkedRequest, PendingStoreError> {
        let mut conn = connection(&self.pool).await?;
        let found: Option<LinkedRow> = requests::table
            .inner_join(proposals::table.inner_join(products::table.on(products::id.eq(proposals::id_produto))))
            .filter(requests::link_sha256.eq(link_sha256))
            .select((
                requests::id,
                proposals::identificador,
                proposals::status,
                products::nome,
                requests::itens,
                requests::nota,
                requests::pedida_em,
                requests::respondida_em,
            ))
            .first(&mut conn)
            .await
            .optional()
            .map_err(query_error)?;
        let Some((_, identifier, status, product, items, note, requested_at, answered_at)) = found else {
            return Err(PendingStoreError::LinkNotFound);
        };
        if answered_at.is_some() || status != ProposalStatus::InAnalysis.as_str() {
            return Err(PendingStoreError::LinkSpent);
        }
        Ok(LinkedRequest {
            identifier,
            product,
            items: items.into_iter().flatten().collect(),
            note,
            requested_at,
        })
    }

    async fn answer_by_link(
        &self,
        link_sha256: &str,
        answer: &PendingAnswerInput,
        at: DateTime<Utc>,
    ) -> Result<PendingResumed, PendingStoreError> {
        let mut conn = connection(&self.pool).await?;
        let resumed = conn
            .transaction(async |conn| {
                let found: Option<(i64, String)> = requests::table
                    .inner_join(proposals::table)
                    .filter(requests::link_sha256.eq(link_sha256))
                    .select((requests::id, proposals::identificador))
                    .first(conn)
                    .await
                    .optional()?;
                let Some((pending_id, identifier)) = found else {
                    return Err(PendingTxError::Refused(PendingStoreError::LinkNotFound));
                };
                let (proposal_id, status) = locked_proposal(conn, &identifier, Scope::Everything).await?;
                record_answer(
                    conn,
                    (proposal_id, &identifier, status),
                    pending_id,
                    PendingRecipient::Proponent,
                    answer,
                    PROPONENT_ACTOR,
                    at,
                )
                .await
                .map_err(|e| match e {
                    // A spent link reads as one: its request is answered or no longer open.
                    PendingTxError::Refused(
                        PendingStoreError::AlreadyAnswered | PendingStoreError::NotInAnalysis(_),
                    ) => PendingTxError::Refused(PendingStoreError::LinkSpent),
                    other => other,
                })
            })
            .await?;
        Ok(resumed)
    }

    async fn answer_pending(
        &self,
        identifier: &str,
        scope: Scope,
        pending_id: i64,
        answer: &PendingAnswerInput,
        answered_by: &str,
        at: DateTime<Utc>,
    ) -> Result<PendingResumed, PendingStoreError> {
        if names_no_row(identifier) {
            return Err(PendingStoreError::ProposalNotFound);
        }
        let mut conn = connection(&self.pool).await?;
        let resumed = conn
            .transaction(async |conn| {
                let (proposal_id, status) = locked_proposal(conn, identifier, scope).await?;
                record_answer(
                    conn,
                    (proposal_id, identifier, status),
                    pending_id,
                    PendingRecipient::Seller,
                    answer,
                    answered_by,
                    at,
                )
                .await
            })
            .await?;
        Ok(resumed)
    }

    async fn overdue_count(&self) -> Result<i64, StoreError> {
        let mut conn = connection(&self.pool).await?;
        clocks::table
            .filter(clocks::decidida_em.is_null())
            .filter(clocks::vencida_em.is_not_null())
            .count()
            .get_result(&mut conn)
            .await
            .map_err(query_error)
    }

    async fn queue(&self, query: &QueueQuery) -> Result<QueuePage, StoreError> {
        use diesel::sql_types::{BigInt, Bool, Text, Timestamptz};
        let mut conn = connection(&self.pool).await?;
        // Before every row: the overdue come first (`false`), and no clock is older than 1970.
        let (after_not_overdue, after_deadline, after_id) =
            query.after.map_or((false, DateTime::<Utc>::UNIX_EPOCH, 0), |c| {
                (!c.overdue, c.deadline, c.proposal_id)
            });
        let (statement, analyst) = match &query.assignment {
            Assignment::Anyone => (QUEUE_OF_ANYONE, None),
            Assignment::Nobody => (QUEUE_OF_NOBODY, None),
            Assignment::To(email) => (QUEUE_OF_ANALYST, Some(email.as_str())),
        };
        let rows: Vec<QueueRow> = statement
            .query()
            .bind::<diesel::sql_types::Nullable<Text>, _>(analyst)
            .bind::<Bool, _>(after_not_overdue)
            .bind::<Timestamptz, _>(after_deadline)
            .bind::<BigInt, _>(after_id)
            .bind::<BigInt, _>(query.limit + 1)
            .load(&mut conn)
            .await
            .map_err(query_error)?;
        let mut entries: Vec<QueueEntry> = rows.into_iter().map(Into::into).collect();
        let next = if entries.len() as i64 > query.limit {
            entries.truncate(usize::try_from(query.limit).unwrap_or(0));
            entries.last().map(QueueEntry::position)
        } else {
            None
        };
        let analysts = analysts(&mut conn).await.map_err(query_error)?;
        Ok(QueuePage {
            entries,
            next,
            analysts,
        })
    }

    async fn assign(
        &self,
        identifier: &str,
        analyst: Option<String>,
        assigned_by: &str,
        at: DateTime<Utc>,
    ) -> Result<(), PendingStoreError> {
        if names_no_row(identifier) {
            return Err(PendingStoreError::ProposalNotFound);
        }
        let mut conn = connection(&self.pool).await?;
        Ok(conn
            .transaction(async |conn| {
                let (proposal_id, status) = locked_proposal(conn, identifier, Scope::Everything).await?;
                match clock_of(conn, proposal_id).await? {
                    Some(clock) if status == ProposalStatus::InAnalysis && clock.decided_at.is_none() => {}
                    _ => return Err(PendingTxError::Refused(PendingStoreError::NotInAnalysis(status))),
                }
                if let Some(analyst) = &analyst
                    && !analysts(conn).await?.contains(analyst)
                {
                    return Err(PendingTxError::Refused(PendingStoreError::NotAnAnalyst(
                        analyst.clone(),
                    )));
                }
                // The history's trigger writes the entry when the analyst changes.
                diesel::update(clocks::table.find(proposal_id))
                    .set((
                        clocks::analista.eq(&analyst),
                        clocks::atribuida_por.eq(assigned_by),
                        clocks::atribuida_em.eq(at),
                    ))
                    .execute(conn)
                    .await?;
                read_model::write_documents(conn, &[proposal_id]).await?;
                Ok::<_, PendingTxError>(())
            })
            .await?)
    }

    async fn pending_file(
        &self,
        identifier: &str,
        scope: Scope,
        file_id: i64,
    ) -> Result<PendingFileContent, PendingStoreError> {
        if names_no_row(identifier) {
            return Err(PendingStoreError::ProposalNotFound);
        }
        let mut conn = connection(&self.pool).await?;
        let found: Option<(String, String, Option<Vec<u8>>, Option<i64>, String, String)> = files::table
            .inner_join(requests::table.inner_join(proposals::table))
            .filter(proposals::identificador.eq(identifier))
            .filter(files::id.eq(file_id))
            .select((
                files::nome,
                files::tipo,
                files::conteudo,
                proposals::id_parceiro,
                proposals::fluxo,
                requests::destinatario,
            ))
            .first(&mut conn)
            .await
            .optional()
            .map_err(query_error)?;
        match found {
            // A file anonymised with its person keeps its listing, not its content.
            // A seller reaches only the files of the requests it answered (decision 289).
            Some((name, content_type, Some(bytes), partner, flow, meant_for))
                if within(scope, partner, &flow)
                    && (scope == Scope::Everything || meant_for == PendingRecipient::Seller.as_str()) =>
            {
                Ok(PendingFileContent {
                    name,
                    content_type,
                    bytes,
                })
            }
            _ => Err(PendingStoreError::FileNotFound),
        }
    }
}

/// How many proposals are overdue now (the metrics' sample).
pub async fn acceptance_overdue(pool: &PgPool) -> Result<i64, StoreError> {
    PgAcceptance::new(pool.clone()).overdue_count().await
}

/// The development clock's shift, one row every process reads.
#[derive(Clone)]
pub struct PgClockShift {
    pool: PgPool,
}

impl PgClockShift {
    pub fn new(pool: PgPool) -> Self {
        Self { pool }
    }
}

#[async_trait]
impl ClockShiftStore for PgClockShift {
    async fn shift_seconds(&self) -> Result<i64, StoreError> {
        let mut conn = connection(&self.pool).await?;
        let shift: Option<i64> = sandbox_clock::table
            .select(sandbox_clock::deslocamento_segundos)
            .first(&mut conn)
            .await
            .optional()
            .map_err(query_error)?;
        Ok(shift.unwrap_or(0))
    }

    async fn store_shift(&self, seconds: i64) -> Result<(), StoreError> {
        let mut conn = connection(&self.pool).await?;
        diesel::insert_into(sandbox_clock::table)
            .values((
                sandbox_clock::singleton.eq(true),
                sandbox_clock::deslocamento_segundos.eq(seconds),
            ))
            .on_conflict(sandbox_clock::singleton)
            .do_update()
            .set((
                sandbox_clock::deslocamento_segundos.eq(seconds),
                sandbox_clock::alterado_em.eq(diesel::dsl::now),
            ))
            .execute(&mut conn)
            .await
            .map_err(query_error)?;
        Ok(())
    }
}
