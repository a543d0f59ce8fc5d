//! The outbox of a proposal's events: an event is queued as one delivery per active subscription
//! that asked for its kind and whose owner may see the proposal, inside the transaction of the
//! change it tells, so that it is sent if and only if the change commits. The status changes
//! (`unit_of_work::status_change`), the creation (`proposals::create_statement`, in its one statement), the
//! sendings and signatures (`signatures`) and the payments (`ecommerce`) all queue here.

use crate::composed::{Composed, Part};
use crate::pool::{PgPool, connection};
use crate::prepared::prepared;
use crate::statement::statement;
use chrono::{DateTime, Utc};
use diesel::prelude::*;
use diesel::sql_types::{BigInt, Integer, Nullable, Text, Timestamptz};
use diesel_async::{AsyncPgConnection, RunQueryDsl};
use domain::billing::term::ContractTerm;
use domain::hooks::payload;
use domain::hooks::payload::NoticeStandingFacts;
use domain::hooks::ports::EventVersions;
use domain::signature::PartyRole;
use domain::values::{Application, EventKind, Flow, HookStatus, PartyStatus, ShippingType};
use std::sync::Arc;

/// The channel a queued delivery is announced on (delivered by PostgreSQL at commit), as a
/// literal so that the statements here stay constants.
macro_rules! channel {
    () => {
        "hook_deliveries"
    };
}

/// A new message id, for the `webhook-id` header.
macro_rules! message_id {
    () => {
        "'msg_' || replace(gen_random_uuid()::text, '-', '')"
    };
}

/// The text of `queued AS (…)` for each row of `$source` (a statement's own row, so that nothing is
/// queued when it wrote nothing), its values named as [`queued_deliveries`] binds them.
macro_rules! queued_text {
    ($source:literal) => {
        concat!(
            "queued AS ( \
             INSERT INTO hook_deliveries (subscription_id, proposal_event_id, message_id, event_type, body, next_attempt_at) \
             SELECT s.id, {evento}, ", $crate::event_outbox::message_id!(), ", {tipo}, \
                    coalesce({corpos_anteriores}::jsonb ->> s.api_version, {corpo}), now() \
             FROM hook_subscriptions s, ", $source, " \
             WHERE s.status = {ativo} AND s.deleted_at IS NULL AND {tipo} = ANY (s.events) \
               AND (s.owner_application = {backoffice} \
                    OR (s.owner_application = {parceiro} AND s.partner_id = {id_parceiro}) \
                    OR (s.owner_application = {ecommerce} AND {loja})) \
             RETURNING 1)"
        )
    };
}

/// Where the deliveries' event comes from: a row the statement writes, or none (one event).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum QueuedFor {
    /// Once, if the statement's `proposal` wrote its row.
    CreatedProposal,
    /// Once, for the status event `Some(id)` (or none).
    Event(Option<i64>),
}

/// `queued`: the deliveries of one event, one per active subscription that asked for its kind and
/// whose owner may see the proposal (the back office's always; a partner's for its own flow; the
/// shop's for the shop's). A subscription of an older contract version that reads the event
/// otherwise gets its version's body from `older_bodies` ([`older_bodies`]); every other gets
/// `body`.
pub(crate) fn queued_deliveries<'a>(
    for_: QueuedFor,
    kind: EventKind,
    body: &'a str,
    older_bodies: &'a str,
    audience: Audience,
) -> Part<'a> {
    let (sql, event) = match for_ {
        QueuedFor::CreatedProposal => (queued_text!("proposal"), None),
        QueuedFor::Event(event) => (queued_text!("(SELECT 1) AS one"), event),
    };
    Part::new("queued", sql)
        .value("evento", event)
        .value("tipo", kind.as_str())
        .value("corpo", body)
        .value("corpos_anteriores", older_bodies)
        .value("id_parceiro", audience.partner)
        .value("loja", audience.shop)
        .value("ativo", HookStatus::Active.as_str())
        .value("backoffice", Application::BackOffice.as_str())
        .value("parceiro", Application::Partner.as_str())
        .value("ecommerce", Application::Ecommerce.as_str())
}

/// The contract versions the composition root handed in ([`use_event_versions`]): a pure function
/// of the event, the same in every instance, kept once per process because the outbox is reached
/// from inside every store's transaction. None handed in: only the newest body.
static EVENT_VERSIONS: std::sync::OnceLock<Box<dyn EventVersions>> = std::sync::OnceLock::new();

/// Hands the contract's event versions to the outbox, once per process (the composition root
/// does, before any store queues an event); a second call keeps the first (they are the same
/// function of the event in one build).
pub fn use_event_versions(versions: Box<dyn EventVersions>) {
    let _ = EVENT_VERSIONS.set(versions);
}

/// The bodies of an event for the contract versions that read it otherwise than the newest
/// `body`: a JSON object of version → body text, `{}` for nearly every event (one a version reads
/// alike is never parsed).
pub(crate) fn older_bodies(kind: EventKind, body: &str) -> String {
    let older = EVENT_VERSIONS
        .get()
        .map(|versions| versions.older_bodies(kind, body))
        .unwrap_or_default();
    if older.is_empty() {
        return NO_OLDER_BODIES.to_owned();
    }
    let by_version: serde_json::Map<String, serde_json::Value> = older
        .into_iter()
        .map(|(version, text)| (version, serde_json::Value::String(text)))
        .collect();
    serde_json::Value::Object(by_version).to_string()
}

/// The event every version reads alike (route 5's `PROPOSTA_CRIADA`, whose status is `NOVO`).
pub(crate) const NO_OLDER_BODIES: &str = "{}";

/// A relation of one row whose evaluation sends the `NOTIFY` (at commit) only when `queued` queued
/// something: a statement joins it to send the wake-up with its own result.
macro_rules! notify_if_queued {
    () => {
        concat!(
            "(SELECT count(*) AS notified FROM (SELECT pg_notify('",
            $crate::event_outbox::channel!(),
            "', '') WHERE EXISTS (SELECT 1 FROM queued)) AS sent) AS notify"
        )
    };
}

pub(crate) use {channel, message_id};

/// Wakes the delivery workers after a commit instead of inside it, at most once per `GAP`: a
/// `NOTIFY` takes a database-wide lock from its transaction's pre-commit to its end, so that
/// notifying writes commit one at a time. Route 5's creation queues its `PROPOSTA_CRIADA`
/// deliveries and announces them here (measured: one subscription asking for the kind took its
/// statement from 1,213 to 754 writes/s with the `NOTIFY` inside, to 1,060 without). Each
/// announcement is followed by one `NOTIFY` at most `GAP` later; a lost one is covered by the
/// workers' polling (`HOOKS_POLL_INTERVAL_MS`).
#[derive(Clone)]
pub(crate) struct Wakeups {
    pool: PgPool,
    wanted: Arc<tokio::sync::Notify>,
    started: Arc<std::sync::OnceLock<()>>,
}

/// The least time between two wake-ups an instance sends.
const GAP: std::time::Duration = std::time::Duration::from_millis(20);

impl Wakeups {
    pub(crate) fn new(pool: PgPool) -> Self {
        Self {
            pool,
            wanted: Arc::new(tokio::sync::Notify::new()),
            started: Arc::new(std::sync::OnceLock::new()),
        }
    }

    /// Asks for a wake-up after what the caller just committed.
    pub(crate) fn announce(&self) {
        statement! {
            NOTIFY_EVENTS = concat!("NOTIFY ", channel!());
        }
        self.started.get_or_init(|| {
            let (pool, wanted) = (self.pool.clone(), self.wanted.clone());
            tokio::spawn(async move {
                loop {
                    wanted.notified().await;
                    let sent = match connection(&pool).await {
                        Ok(mut conn) => NOTIFY_EVENTS.query()
                            .execute(&mut conn)
                            .await
                            .map_err(|e| e.to_string()),
                        Err(e) => Err(e.to_string()),
                    };
                    if let Err(error) = sent {
                        tracing::warn!(%error, "aviso de entregas não enviado: os workers as acham na próxima varredura");
                    }
                    tokio::time::sleep(GAP).await;
                }
            });
        });
        // A permit is kept when the task is busy: the next round sends for it.
        self.wanted.notify_one();
    }
}

/// The channel a queued delivery is announced on.
pub(crate) const CHANNEL: &str = channel!();

/// The statement's tail after `queued`: the wake-up sent (at commit) when it queued something.
const NOTIFY_IF_QUEUED: &str = concat!(" SELECT notified FROM ", notify_if_queued!());

/// Who may see a proposal's events besides the back office, which sees them all.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Audience {
    /// The partner whose subscriptions may receive them.
    pub(crate) partner: Option<i64>,
    /// Whether the shop's may.
    pub(crate) shop: bool,
}

impl Audience {
    /// A shop's sale credited to a partner stays the shop's (decision 123): only a partner's own
    /// flow reaches its subscriptions.
    pub(crate) fn of(partner_id: Option<i64>, flow: Flow) -> Self {
        Audience {
            partner: partner_id.filter(|_| flow == Flow::Partner),
            shop: flow == Flow::Ecommerce,
        }
    }
}

/// What every event of a proposal names: its identifier and who may see it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ProposalFacts {
    pub(crate) id: i64,
    pub(crate) identifier: String,
    pub(crate) audience: Audience,
    pub(crate) shipping: ShippingType,
}

#[derive(QueryableByName)]
struct FactsRow {
    #[diesel(sql_type = Text)]
    identificador: String,
    #[diesel(sql_type = Nullable<BigInt>)]
    id_parceiro: Option<i64>,
    #[diesel(sql_type = Text)]
    fluxo: String,
    #[diesel(sql_type = Text)]
    tipo_envio: String,
}

/// The facts of a proposal, read inside the caller's transaction.
pub(crate) async fn facts_of(conn: &mut AsyncPgConnection, proposal_id: i64) -> QueryResult<ProposalFacts> {
    statement! {
        SELECT_PROPOSALS => FactsRow = "SELECT identificador, id_parceiro, fluxo, tipo_envio FROM proposals WHERE id = $1";
    }
    let row: FactsRow = prepared(SELECT_PROPOSALS, |q| q.bind::<BigInt, _>(proposal_id))
        .get_result(conn)
        .await?;
    facts_from(
        proposal_id,
        row.identificador,
        row.id_parceiro,
        &row.fluxo,
        &row.tipo_envio,
    )
}

/// The facts from a proposal's columns as stored.
pub(crate) fn facts_from(
    id: i64,
    identifier: String,
    partner_id: Option<i64>,
    flow: &str,
    shipping: &str,
) -> QueryResult<ProposalFacts> {
    let flow = crate::rows::stored(Flow::from_stored(flow, "proposals", "fluxo"))?;
    let shipping = crate::rows::stored(ShippingType::from_stored(shipping, "proposals", "tipo_envio"))?;
    Ok(ProposalFacts {
        id,
        identifier,
        audience: Audience::of(partner_id, flow),
        shipping,
    })
}

/// Queues `body` for every active subscription that asked for `kind` and may see the proposal.
pub(crate) async fn queue(
    conn: &mut AsyncPgConnection,
    kind: EventKind,
    status_event_id: Option<i64>,
    body: &str,
    audience: Audience,
) -> QueryResult<()> {
    let older = older_bodies(kind, body);
    Composed::new()
        .text("WITH ")
        .part(queued_deliveries(
            QueuedFor::Event(status_event_id),
            kind,
            body,
            &older,
            audience,
        ))
        .text(NOTIFY_IF_QUEUED)
        .execute(conn)
        .await
        .map(|_| ())
}

#[derive(QueryableByName)]
struct SequenceRow {
    #[diesel(sql_type = Integer)]
    last_sequence: i32,
    #[diesel(sql_type = Timestamptz)]
    at: DateTime<Utc>,
}

/// The next number of the proposal's events of `kind`, and the transaction's time; the counter's
/// row lock orders concurrent events of one proposal and kind.
pub(crate) async fn next_sequence(
    conn: &mut AsyncPgConnection,
    proposal_id: i64,
    kind: EventKind,
) -> QueryResult<(i32, DateTime<Utc>)> {
    statement! {
        INSERT_PROPOSAL_EVENT_SEQUENCES => SequenceRow = "INSERT INTO proposal_event_sequences (proposal_id, kind, last_sequence) VALUES ($1, $2, 1)
             ON CONFLICT (proposal_id, kind)
             DO UPDATE SET last_sequence = proposal_event_sequences.last_sequence + 1
             RETURNING last_sequence, now() AS at";
    }
    let row: SequenceRow = prepared(INSERT_PROPOSAL_EVENT_SEQUENCES, |q| {
        q.bind::<BigInt, _>(proposal_id).bind::<Text, _>(kind.as_str())
    })
    .get_result(conn)
    .await?;
    Ok((row.last_sequence, row.at))
}

/// `PROPOSTA_ENVIADA`: the proposal's `sending`-th sending (1 for the first; a resend after).
pub(crate) async fn queue_sending(
    conn: &mut AsyncPgConnection,
    facts: &ProposalFacts,
    sending: i32,
    sent_by: &str,
    at: DateTime<Utc>,
) -> QueryResult<()> {
    let body = payload::proposal_sent(&facts.identifier, facts.shipping, sent_by, at, sending);
    queue(conn, EventKind::ProposalSent, None, &body, facts.audience).await
}

/// `ASSINATURA_REGISTRADA`: one party signed or refused.
pub(crate) async fn queue_signature(
    conn: &mut AsyncPgConnection,
    facts: &ProposalFacts,
    party: PartyRole,
    status: PartyStatus,
    at: DateTime<Utc>,
) -> QueryResult<()> {
    let (sequence, _) = next_sequence(conn, facts.id, EventKind::SignatureRecorded).await?;
    let body = payload::signature_recorded(&facts.identifier, party, status, at, sequence);
    queue(conn, EventKind::SignatureRecorded, None, &body, facts.audience).await
}

/// `PAGAMENTO_ALTERADO`: the proposal's subscription on the payment platform is now in `status`
/// (nothing is told when it stays where it was).
pub(crate) async fn queue_payment(
    conn: &mut AsyncPgConnection,
    proposal_id: i64,
    previous: Option<&str>,
    status: &str,
) -> QueryResult<()> {
    if previous == Some(status) {
        return Ok(());
    }
    let facts = facts_of(conn, proposal_id).await?;
    let (sequence, at) = next_sequence(conn, proposal_id, EventKind::PaymentChanged).await?;
    let body = payload::payment_changed(&facts.identifier, previous, status, at, sequence);
    queue(conn, EventKind::PaymentChanged, None, &body, facts.audience).await
}

/// `AVISO_REGISTRADO`: a notice to the customer sent, or its receipt or frustration learned
/// (decision 273), in the caller's transaction.
pub(crate) async fn queue_notice(
    conn: &mut AsyncPgConnection,
    proposal_id: i64,
    notice: NoticeStandingFacts,
) -> QueryResult<()> {
    let facts = facts_of(conn, proposal_id).await?;
    let (sequence, at) = next_sequence(conn, proposal_id, EventKind::NoticeRecorded).await?;
    let body = payload::notice_recorded(&facts.identifier, notice, at, sequence);
    queue(conn, EventKind::NoticeRecorded, None, &body, facts.audience).await
}

/// `VIGENCIA_RENOVADA`: the contract renewed for `term` (decision 273), in the caller's
/// transaction.
pub(crate) async fn queue_term_renewed(
    conn: &mut AsyncPgConnection,
    proposal_id: i64,
    term: &ContractTerm,
) -> QueryResult<()> {
    let facts = facts_of(conn, proposal_id).await?;
    let (sequence, at) = next_sequence(conn, proposal_id, EventKind::TermRenewed).await?;
    let body = payload::term_renewed(&facts.identifier, term, at, sequence);
    queue(conn, EventKind::TermRenewed, None, &body, facts.audience).await
}

/// `PENDENCIA_ABERTA`: the back office asked for documents (what, only when the seller answers).
pub(crate) async fn queue_pending_opened(
    conn: &mut AsyncPgConnection,
    proposal_id: i64,
    pending: i64,
    request: &domain::acceptance::pending::DocumentsRequest,
    recipient: domain::acceptance::pending::PendingRecipient,
    at: DateTime<Utc>,
) -> QueryResult<()> {
    let facts = facts_of(conn, proposal_id).await?;
    let (sequence, _) = next_sequence(conn, proposal_id, EventKind::PendingOpened).await?;
    let body = payload::pending_opened(&facts.identifier, pending, request, recipient, at, sequence);
    queue(conn, EventKind::PendingOpened, None, &body, facts.audience).await
}

/// `PENDENCIA_RESPONDIDA`: the seller answered; the clock runs to `deadline`.
pub(crate) async fn queue_pending_answered(
    conn: &mut AsyncPgConnection,
    proposal_id: i64,
    pending: i64,
    files: i64,
    at: DateTime<Utc>,
    deadline: DateTime<Utc>,
) -> QueryResult<()> {
    let facts = facts_of(conn, proposal_id).await?;
    let (sequence, _) = next_sequence(conn, proposal_id, EventKind::PendingAnswered).await?;
    let body = payload::pending_answered(&facts.identifier, pending, files, at, deadline, sequence);
    queue(conn, EventKind::PendingAnswered, None, &body, facts.audience).await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_queue_statement_announces_on_the_channel_the_workers_listen_to() {
        assert!(queued_text!("proposal").contains(message_id!()));
        assert!(NOTIFY_IF_QUEUED.contains(&format!("pg_notify('{CHANNEL}', '')")));
    }

    #[test]
    fn a_partners_subscriptions_see_only_its_own_flow_and_the_shops_only_the_shops() {
        assert_eq!(
            Audience::of(Some(7), Flow::Partner),
            Audience {
                partner: Some(7),
                shop: false
            }
        );
        assert_eq!(
            Audience::of(Some(7), Flow::Ecommerce),
            Audience {
                partner: None,
                shop: true
            }
        );
    }
}
