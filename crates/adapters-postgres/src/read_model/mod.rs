//! The proposal's read model (decision 131, defined in Rust since decision 168): one stored
//! document per proposal holding everything route 7 answers. Route 7, the console's proposal page
//! and the documents read it by key.
//!
//! The document is defined here, once: [`build_documents`] reads a proposal's parts and
//! [`ProposalDocument`] is what it stores. Every write that changes a part calls
//! [`write_documents`] in its own transaction, before it commits; `check read-model` builds every
//! document again with the same function and reports (or mends) any stored one that differs.
//!
//! The document keeps each stored row under its own key with its columns' names, so that it is
//! read with the same row types (and the same conversions into the domain) as the statement that
//! joins the parts.

mod check;
pub(crate) mod parts;
mod reads;

#[cfg(feature = "testing")]
pub use check::stored_and_built_json;
pub use check::{ReadModelReport, built_detail, check_read_model};
pub(crate) use reads::read_detail;

use crate::composed::Part;
use crate::pool::query_error;
use crate::prepared::prepared;
use crate::rows::{PartnerRow, PaymentRow, ProposalCustomerRow, ProposalRow, row_of_json};
use crate::schema::{
    motivations, partners, products, proposal_customers, proposal_payments, proposals, representatives,
    signature_parties, signatures, subscriptions, users,
};
use crate::statement::statement;
use chrono::{DateTime, Utc};
use diesel::prelude::*;
use diesel::sql_types::{Array, Int8, Jsonb, Nullable, Text};
use diesel_async::{AsyncConnection, AsyncPgConnection, RunQueryDsl};
use domain::proposals::model::{PaymentView, ProposalDetail, RepresentativeView, SignatureView, SubscriptionView};
use domain::signature::PartyRole;
use domain::stamp::ChangeStamp;
use domain::store::StoreError;
use domain::values::{PartyStatus, StoredValueError};
use parts::acceptance::{AcceptancePart, acceptances_of};
use parts::billing::{BillingPart, ChargePart, billings_of, charges_of};
use parts::ledger::{LedgerPart, ledgers_of};
use parts::pix::{RecurrencePart, recurrences_of};
use parts::refunds::{RefundPart, refunds_of};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;

/// Proposals compared (or written) per statement: each batch is one short read, so that a check
/// of millions of proposals never holds one long snapshot.
pub(crate) const CHECK_BATCH: i64 = 2_000;
/// A proposal's stored document: its parts, each stored row under its own key.
#[derive(Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct ProposalDocument {
    proposal: ProposalRow,
    product: ProductPart,
    motivation: String,
    customer: ProposalCustomerRow,
    partner: Option<PartnerRow>,
    representative: Option<RepresentativePart>,
    payment: Option<PaymentRow>,
    signature: Option<SignaturePart>,
    /// Absent from documents written before migration 000030 (read while it rewrote them).
    #[serde(default)]
    subscription: Option<SubscriptionPart>,
    /// The acceptance clock, from the entry in `EM ANÁLISE` (migration 000040): absent before.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    acceptance: Option<AcceptancePart>,
    /// Every refund, oldest first (migration 000042): absent when there is none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    refunds: Vec<RefundPart>,
    /// The contract's billing status, from its acceptance (migration 000051): absent before.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    billing: Option<BillingPart>,
    /// The contract's last charges, oldest first (migration 000051): absent when there is none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    charges: Vec<ChargePart>,
    /// The `PIX AUTOMÁTICO` contract's recurrence (migration 000054): absent before its creation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pix_recurrence: Option<RecurrencePart>,
    /// The contract's balances from its ledger (migration 000057): absent while all are zero.
    #[serde(default, skip_serializing_if = "LedgerPart::is_empty")]
    ledger: LedgerPart,
}

/// The proposal's latest subscription known to the payment platform.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Queryable)]
pub(crate) struct SubscriptionPart {
    pub platform_id: String,
    pub status: String,
    pub current_period_end: Option<DateTime<Utc>>,
    pub latest_invoice_status: Option<String>,
}

impl From<SubscriptionPart> for SubscriptionView {
    fn from(s: SubscriptionPart) -> Self {
        SubscriptionView {
            id: s.platform_id,
            status: s.status,
            current_period_end: s.current_period_end,
            latest_invoice_status: s.latest_invoice_status,
        }
    }
}

#[derive(Debug, PartialEq, Serialize, Deserialize)]
struct ProductPart {
    nome: String,
    codigo_produto: i32,
}

#[derive(Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct RepresentativePart {
    pub cpf: Option<String>,
    pub email: String,
    pub name: Option<String>,
    pub video_attendance_token: Option<String>,
}

impl From<RepresentativePart> for RepresentativeView {
    fn from(r: RepresentativePart) -> Self {
        RepresentativeView {
            cpf: r.cpf,
            email: r.email,
            name: r.name,
            video_attendance_token: r.video_attendance_token,
        }
    }
}

/// The proposal's signature envelope with its parties.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct SignaturePart {
    pub id: i64,
    pub alterado_por: String,
    pub criado_em: DateTime<Utc>,
    pub alterado_em: DateTime<Utc>,
    pub parties: Vec<PartyPart>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct PartyPart {
    pub role: String,
    pub request_key: String,
    pub status: String,
    pub latitude: Option<String>,
    pub longitude: Option<String>,
}

impl TryFrom<SignaturePart> for SignatureView {
    type Error = StoredValueError;

    /// The four parties' keys and statuses; where they signed is the client's.
    fn try_from(s: SignaturePart) -> Result<Self, StoredValueError> {
        let party = |role: PartyRole| s.parties.iter().find(|p| p.role == role.as_str());
        let status = |role: PartyRole| {
            party(role)
                .map(|p| PartyStatus::from_stored(&p.status, "signature_parties", "status"))
                .transpose()
        };
        let key = |role: PartyRole| party(role).map(|p| p.request_key.clone());
        let client = party(PartyRole::Client);
        Ok(SignatureView {
            id: s.id,
            client_key: key(PartyRole::Client),
            association_key: key(PartyRole::Association),
            federation_key: key(PartyRole::Federation),
            enterprise_key: key(PartyRole::Enterprise),
            client_status: status(PartyRole::Client)?,
            association_status: status(PartyRole::Association)?,
            federation_status: status(PartyRole::Federation)?,
            enterprise_status: status(PartyRole::Enterprise)?,
            latitude: client.and_then(|p| p.latitude.clone()),
            longitude: client.and_then(|p| p.longitude.clone()),
            stamp: ChangeStamp {
                changed_by: s.alterado_por,
                created_at: s.criado_em,
                updated_at: s.alterado_em,
            },
        })
    }
}

impl TryFrom<ProposalDocument> for ProposalDetail {
    type Error = StoredValueError;

    fn try_from(d: ProposalDocument) -> Result<Self, StoredValueError> {
        let (customer, address) = d.customer.into_views()?;
        Ok(ProposalDetail {
            proposal: d.proposal.try_into()?,
            product_name: d.product.nome,
            product_code: d.product.codigo_produto,
            motivation: d.motivation,
            representative: d.representative.map(Into::into),
            customer,
            address: Some(address),
            partner: d.partner.map(Into::into),
            signature: d.signature.map(SignatureView::try_from).transpose()?,
            payment: d.payment.map(PaymentView::try_from).transpose()?,
            subscription: d.subscription.map(Into::into),
            acceptance: d.acceptance.map(Into::into),
            refunds: d
                .refunds
                .into_iter()
                .map(domain::refunds::RefundRecord::try_from)
                .collect::<Result<_, _>>()?,
            billing: d.billing.map(domain::billing::Billing::try_from).transpose()?,
            charges: d
                .charges
                .into_iter()
                .map(domain::billing::Charge::try_from)
                .collect::<Result<_, _>>()?,
            pix_recurrence: d
                .pix_recurrence
                .map(domain::billing::pix::RecurrenceView::try_from)
                .transpose()?,
            ledger: d.ledger.into(),
        })
    }
}

/// What [`build_documents`]'s main statement reads per proposal: the proposal; its product's name
/// and code and its motivation; its copy of the customer and address (as the row's `to_jsonb`:
/// the person's columns are one declaration for two tables); the partner; the representative
/// (CPF, e-mail, name, video token); the payment.
type PartsRow = (
    ProposalRow,
    (String, i32, String),
    serde_json::Value,
    Option<PartnerRow>,
    Option<(Option<String>, String, Option<String>, Option<String>)>,
    Option<PaymentRow>,
);

/// A signature's row with one of its parties (none when it has no party yet): the proposal, the
/// signature's id, who changed it and when, and the party's role, request key, status, latitude
/// and longitude.
type SignatureRow = (
    i64,
    i64,
    String,
    DateTime<Utc>,
    DateTime<Utc>,
    Option<(String, String, String, Option<String>, Option<String>)>,
);

/// A proposal's copy of the customer as its document keeps it (`$row` a `proposal_customers`
/// row): its columns, without the proposal's id (the document's key) and the search name (the
/// list's). Both the build and route 3's and 5's statements read it so.
macro_rules! customer_part {
    ($row:literal) => {
        concat!("(to_jsonb(", $row, ") - 'id_proposta' - 'nome_busca')")
    };
}

/// The proposals `$ids` with what each has at most one of (`PartsRow`).
macro_rules! parts_of {
    ($ids:expr) => {
        proposals::table
            .inner_join(products::table)
            .inner_join(motivations::table)
            .inner_join(proposal_customers::table)
            .left_join(partners::table)
            .left_join(representatives::table.inner_join(users::table))
            .left_join(proposal_payments::table)
            .filter(proposals::id.eq_any($ids))
            .select((
                ProposalRow::as_select(),
                (products::nome, products::codigo_produto, motivations::descricao),
                diesel::dsl::sql::<Jsonb>(customer_part!("proposal_customers.*")),
                Option::<PartnerRow>::as_select(),
                (
                    users::cpf,
                    users::email,
                    users::name,
                    representatives::video_attendance_token,
                )
                    .nullable(),
                Option::<PaymentRow>::as_select(),
            ))
    };
}

/// The signatures of the proposals `$ids`, each row with one party (`SignatureRow`).
macro_rules! signatures_of {
    ($ids:expr) => {
        signatures::table
            .left_join(signature_parties::table)
            .filter(signatures::proposal_id.eq_any($ids))
            .order((signatures::proposal_id, signature_parties::role.nullable()))
            .select((
                signatures::proposal_id,
                signatures::id,
                signatures::alterado_por,
                signatures::criado_em,
                signatures::alterado_em,
                (
                    signature_parties::role,
                    signature_parties::request_key,
                    signature_parties::status,
                    signature_parties::latitude,
                    signature_parties::longitude,
                )
                    .nullable(),
            ))
    };
}

/// The latest subscription known to the payment platform of each proposal of `$ids`.
macro_rules! subscriptions_of {
    ($ids:expr) => {
        subscriptions::table
            .filter(subscriptions::proposal_id.eq_any($ids))
            .filter(subscriptions::platform_id.is_not_null())
            .distinct_on(subscriptions::proposal_id)
            .order((subscriptions::proposal_id, subscriptions::id.desc()))
            .select((
                subscriptions::proposal_id,
                (
                    subscriptions::platform_id.assume_not_null(),
                    subscriptions::status,
                    subscriptions::current_period_end,
                    subscriptions::latest_invoice_status,
                ),
            ))
    };
}

/// The documents of `ids` as their parts make them now, by proposal id: the one definition of
/// the read model. A proposal without its copy of the customer (route 7 finds nothing without it)
/// has none. Three statements, pipelined on one connection (inside the caller's transaction when
/// it has one): the proposal with what it has at most one of, its signature's parties, and its
/// latest subscription known to the payment platform.
pub(crate) async fn build_documents(
    conn: &mut AsyncPgConnection,
    ids: &[i64],
) -> QueryResult<HashMap<i64, ProposalDocument>> {
    let shared: &AsyncPgConnection = conn;
    let (mut for_parts, mut for_signatures, mut for_subscriptions, mut for_acceptances, mut for_refunds) =
        (shared, shared, shared, shared, shared);
    let (mut for_billings, mut for_charges, mut for_recurrences, mut for_ledgers) = (shared, shared, shared, shared);
    let parts = parts_of!(ids).load::<PartsRow>(&mut for_parts);
    let signatures = signatures_of!(ids).load::<SignatureRow>(&mut for_signatures);
    let subscriptions = subscriptions_of!(ids).load::<(i64, SubscriptionPart)>(&mut for_subscriptions);
    let acceptances = acceptances_of(&mut for_acceptances, ids);
    let refunds = refunds_of(&mut for_refunds, ids);
    let billings = billings_of(&mut for_billings, ids);
    let charges = charges_of(&mut for_charges, ids);
    let recurrences = recurrences_of(&mut for_recurrences, ids);
    let ledgers = ledgers_of(&mut for_ledgers, ids);
    let (
        parts,
        signature_rows,
        subscriptions,
        mut acceptances,
        mut refunds,
        mut billings,
        mut charges,
        mut recurrences,
        mut ledgers,
    ) = futures_util::try_join!(
        parts,
        signatures,
        subscriptions,
        acceptances,
        refunds,
        billings,
        charges,
        recurrences,
        ledgers
    )?;

    let mut signatures: HashMap<i64, SignaturePart> = HashMap::new();
    for (proposal_id, id, changed_by, created_at, updated_at, party) in signature_rows {
        let signature = signatures.entry(proposal_id).or_insert_with(|| SignaturePart {
            id,
            alterado_por: changed_by,
            criado_em: created_at,
            alterado_em: updated_at,
            parties: Vec::new(),
        });
        if let Some((role, request_key, status, latitude, longitude)) = party {
            signature.parties.push(PartyPart {
                role,
                request_key,
                status,
                latitude,
                longitude,
            });
        }
    }
    let mut subscriptions: HashMap<i64, SubscriptionPart> = subscriptions.into_iter().collect();

    parts
        .into_iter()
        .map(
            |(proposal, (nome, codigo_produto, motivation), customer, partner, representative, payment)| {
                let id = proposal.id;
                let shown = ShownParts {
                    product: ProductPart { nome, codigo_produto },
                    motivation,
                    customer,
                    partner,
                    representative: representative.map(|(cpf, email, name, video_attendance_token)| {
                        RepresentativePart {
                            cpf,
                            email,
                            name,
                            video_attendance_token,
                        }
                    }),
                    payment,
                };
                let document = ProposalDocument::assemble(
                    proposal,
                    shown,
                    signatures.remove(&id),
                    subscriptions.remove(&id),
                    acceptances.remove(&id),
                    refunds.remove(&id).unwrap_or_default(),
                    Money {
                        billing: billings.remove(&id),
                        charges: charges.remove(&id).unwrap_or_default(),
                        pix_recurrence: recurrences.remove(&id),
                        ledger: ledgers.remove(&id).unwrap_or_default(),
                    },
                )?;
                Ok((id, document))
            },
        )
        .collect()
}

/// What a proposal's document shows besides the proposal itself, its signature and its
/// subscription: its product, its motivation, its copy of the customer (the row's JSON: the
/// person's columns are one declaration for two tables), its partner, its representative and its
/// payment.
struct ShownParts {
    product: ProductPart,
    motivation: String,
    customer: serde_json::Value,
    partner: Option<PartnerRow>,
    representative: Option<RepresentativePart>,
    payment: Option<PaymentRow>,
}

impl ProposalDocument {
    /// The one assembly of a document from its parts, wherever they were read.
    fn assemble(
        proposal: ProposalRow,
        shown: ShownParts,
        signature: Option<SignaturePart>,
        subscription: Option<SubscriptionPart>,
        acceptance: Option<AcceptancePart>,
        refunds: Vec<RefundPart>,
        money: Money,
    ) -> QueryResult<Self> {
        Ok(ProposalDocument {
            customer: json_row("proposal_customers", shown.customer)?,
            product: shown.product,
            motivation: shown.motivation,
            partner: shown.partner,
            representative: shown.representative,
            payment: shown.payment,
            signature,
            subscription,
            acceptance,
            refunds,
            billing: money.billing,
            charges: money.charges,
            pix_recurrence: money.pix_recurrence,
            ledger: money.ledger,
            proposal,
        })
    }
}

/// What an accepted contract's billing adds to its document.
struct Money {
    billing: Option<BillingPart>,
    charges: Vec<ChargePart>,
    pix_recurrence: Option<RecurrencePart>,
    ledger: LedgerPart,
}

/// A row read as its JSON, as diesel's error (it travels through transactions like any other).
fn json_row<T: serde::de::DeserializeOwned>(table: &str, row: serde_json::Value) -> QueryResult<T> {
    row_of_json(table, row).map_err(|error| diesel::result::Error::DeserializationError(error.to_string().into()))
}

/// `document`: the new proposal's document, written by route 5's own statement (decision 172)
/// from the rows its `proposal`, `copied` and `payment` parts wrote and those they name, each
/// under its key as [`ProposalDocument`] keeps it, without the columns the document's rows do not
/// read; a new proposal has no signature nor subscription yet. A separate write of the document
/// in the statement's transaction cost route 5 a fifth of its rate (docs/performance.md); the
/// read-model tests prove this one reads back as [`build_documents`] builds it, key for key.
pub(crate) fn new_document<'a>() -> Part<'a> {
    Part::text(concat!(
        "document AS (INSERT INTO proposal_read_models (id_proposta, identificador, fluxo, id_parceiro, documento) \
         SELECT p.id, p.identificador, p.fluxo, p.id_parceiro, jsonb_build_object( \
             'proposal', to_jsonb(p) - 'tipo_pagamento' - 'cpf_cliente', \
             'product', jsonb_build_object('nome', pr.nome, 'codigo_produto', pr.codigo_produto), \
             'motivation', m.descricao, \
             'customer', (SELECT ",
        customer_part!("c"),
        " FROM copied c), \
             'partner', (SELECT to_jsonb(pa) FROM partners pa WHERE pa.id = p.id_parceiro), \
             'representative', (SELECT to_jsonb(rep) FROM (SELECT u.cpf, u.email, u.name, r.video_attendance_token \
                 FROM representatives r JOIN users u ON u.id = r.user_id WHERE r.id = p.id_representante) rep), \
             'payment', (SELECT to_jsonb(pay) - 'id_proposta' - CASE WHEN pay.ispb IS NULL THEN 'ispb' ELSE '' END \
                 FROM payment pay), \
             'signature', NULL, 'subscription', NULL) \
         FROM proposal p JOIN products pr ON pr.id = p.id_produto JOIN motivations m ON m.id = p.id_motivacao)"
    ))
}

/// `refreshed_documents`: the documents of the proposals whose copies the statement's `refreshed`
/// part wrote (route 3's and 5's), their customer replaced by the copy as it now is, in the same
/// statement. `refreshed` holds each proposal's row lock (shared) as a status move or a claim
/// does, so a document written meanwhile by another transaction is the one updated here. A
/// proposal without its document, or one the guard marked, keeps its mark and is built whole at
/// its next read (the guard marks the one without a document at commit).
pub(crate) fn refreshed_documents<'a>() -> Part<'a> {
    Part::text(concat!(
        "refreshed_documents AS (UPDATE proposal_read_models d \
         SET documento = d.documento || jsonb_build_object('customer', ",
        customer_part!("pc"),
        ") FROM refreshed pc WHERE d.id_proposta = pc.id_proposta)"
    ))
}

statement! {
    /// The proposals' row locks, shared, in id order (`$1` the ids).
    LOCK = "SELECT 1 FROM proposals WHERE id = ANY($1) ORDER BY id FOR SHARE";
}

statement! {
    /// The documents written, column by column, and the guard's marks of them removed (the table is
    /// nearly always empty: one index probe).
    UPSERT = "WITH unmarked AS (DELETE FROM proposal_read_model_stale WHERE id_proposta = ANY($1)) \
     INSERT INTO proposal_read_models (id_proposta, identificador, fluxo, id_parceiro, documento) \
     SELECT * FROM unnest($1::int8[], $2::text[], $3::text[], $4::int8[], $5::jsonb[]) \
     ON CONFLICT (id_proposta) DO UPDATE SET \
         identificador = EXCLUDED.identificador, fluxo = EXCLUDED.fluxo, \
         id_parceiro = EXCLUDED.id_parceiro, documento = EXCLUDED.documento";
}

/// Writes the documents of `ids` as their parts are now, inside the caller's transaction, and
/// removes those whose proposal (or its copy of the customer) is gone. Every write of a part calls
/// it before its commit. It takes the proposals' row locks first (shared, in id order), which
/// every status move and every claim holds until it commits, and then reads the parts: two
/// transactions writing one proposal's parts (a correction and a cancellation) never leave the
/// document of the one that read first.
pub(crate) async fn write_documents(
    conn: &mut AsyncPgConnection,
    ids: &[i64],
) -> QueryResult<Vec<(i64, ProposalDocument)>> {
    statement! {
        DELETE_PROPOSAL_READ_MODEL_STALE = "WITH unmarked AS (DELETE FROM proposal_read_model_stale WHERE id_proposta = ANY($1)) \
                 DELETE FROM proposal_read_models WHERE id_proposta = ANY($1)";
    }
    if ids.is_empty() {
        return Ok(Vec::new());
    }
    let mut ids = ids.to_vec();
    ids.sort_unstable();
    ids.dedup();
    prepared(LOCK, |q| q.bind::<Array<Int8>, _>(&ids)).execute(conn).await?;
    let mut documents = build_documents(conn, &ids).await?;
    let gone: Vec<i64> = ids.iter().copied().filter(|id| !documents.contains_key(id)).collect();
    let mut rows = Rows::default();
    let mut written = Vec::with_capacity(documents.len());
    for id in &ids {
        if let Some(document) = documents.remove(id) {
            rows.push(*id, &document)?;
            written.push((*id, document));
        }
    }
    if !rows.ids.is_empty() {
        prepared(UPSERT, |q| {
            q.bind::<Array<Int8>, _>(&rows.ids)
                .bind::<Array<Text>, _>(&rows.identifiers)
                .bind::<Array<Text>, _>(&rows.flows)
                .bind::<Array<Nullable<Int8>>, _>(&rows.partners)
                .bind::<Array<Jsonb>, _>(&rows.documents)
        })
        .execute(conn)
        .await?;
    }
    if !gone.is_empty() {
        prepared(DELETE_PROPOSAL_READ_MODEL_STALE, |q| q.bind::<Array<Int8>, _>(&gone))
            .execute(conn)
            .await?;
    }
    Ok(written)
}

/// A row other proposals show in their documents: an edit of it writes theirs again.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Shown {
    /// A product's name and code.
    Product(i64),
    /// A representative's video attendance token.
    Representative(i64),
}

/// Writes again, in batches inside the caller's transaction, the documents of every proposal
/// that shows `shown`.
pub(crate) async fn write_documents_showing(conn: &mut AsyncPgConnection, shown: Shown) -> QueryResult<()> {
    let ids: Vec<i64> = match shown {
        Shown::Product(id) => {
            proposals::table
                .filter(proposals::id_produto.eq(id))
                .select(proposals::id)
                .load(conn)
                .await?
        }
        Shown::Representative(id) => {
            proposals::table
                .filter(proposals::id_representante.eq(id))
                .select(proposals::id)
                .load(conn)
                .await?
        }
    };
    for batch in ids.chunks(CHECK_BATCH as usize) {
        write_documents(conn, batch).await?;
    }
    Ok(())
}

/// The stored rows of a batch of documents, column by column (one `unnest` writes them all).
#[derive(Default)]
struct Rows {
    ids: Vec<i64>,
    identifiers: Vec<String>,
    flows: Vec<String>,
    partners: Vec<Option<i64>>,
    documents: Vec<serde_json::Value>,
}

impl Rows {
    fn push(&mut self, id: i64, document: &ProposalDocument) -> QueryResult<()> {
        let json = serde_json::to_value(document)
            .map_err(|error| diesel::result::Error::SerializationError(Box::new(error)))?;
        self.ids.push(id);
        self.identifiers.push(document.proposal.identificador.clone());
        self.flows.push(document.proposal.fluxo.clone());
        self.partners.push(document.proposal.id_parceiro);
        self.documents.push(json);
        Ok(())
    }
}

/// A stored document with the keys its row repeats from the proposal.
#[derive(QueryableByName)]
struct StoredRow {
    #[diesel(sql_type = Int8)]
    id_proposta: i64,
    #[diesel(sql_type = Text)]
    identificador: String,
    #[diesel(sql_type = Text)]
    fluxo: String,
    #[diesel(sql_type = Nullable<Int8>)]
    id_parceiro: Option<i64>,
    #[diesel(sql_type = Text)]
    documento: String,
    #[diesel(sql_type = diesel::sql_types::Bool)]
    stale: bool,
}

impl StoredRow {
    /// Whether this stored row says what `built` says: the same parts (read back as the same
    /// rows, so that a timestamp's spelling is not a difference) under the same keys, unmarked.
    fn matches(&self, built: &ProposalDocument) -> bool {
        let keys = (self.identificador.as_str(), self.fluxo.as_str(), self.id_parceiro);
        let built_keys = (
            built.proposal.identificador.as_str(),
            built.proposal.fluxo.as_str(),
            built.proposal.id_parceiro,
        );
        !self.stale
            && keys == built_keys
            && serde_json::from_str::<ProposalDocument>(&self.documento).is_ok_and(|stored| stored == *built)
    }
}

/// Writes again the documents the guard marked (writes that skipped the service: `migrate` calls
/// it after the migrations), in batches, each its own transaction; answers how many.
pub(crate) async fn write_marked(conn: &mut AsyncPgConnection) -> QueryResult<u64> {
    statement! {
        SELECT_PROPOSAL_READ_MODEL_STALE => Marked = "SELECT id_proposta FROM proposal_read_model_stale ORDER BY id_proposta LIMIT $1";
    }
    let mut written = 0;
    loop {
        let marked: Vec<i64> = prepared(SELECT_PROPOSAL_READ_MODEL_STALE, |q| q.bind::<Int8, _>(CHECK_BATCH))
            .load::<Marked>(conn)
            .await?
            .into_iter()
            .map(|m| m.id_proposta)
            .collect();
        if marked.is_empty() {
            return Ok(written);
        }
        // Each batch's marks go with its write, so that the next batch reads the next ones.
        conn.transaction(async |tx| write_documents(tx, &marked).await.map(drop))
            .await?;
        written += marked.len() as u64;
    }
}

#[derive(QueryableByName)]
struct Marked {
    #[diesel(sql_type = Int8)]
    id_proposta: i64,
}

/// The id of the proposal with this identifier, if there is one.
async fn id_of(conn: &mut AsyncPgConnection, identifier: &str) -> Result<Option<i64>, StoreError> {
    proposals::table
        .filter(proposals::identificador.eq(identifier))
        .select(proposals::id)
        .first(conn)
        .await
        .optional()
        .map_err(query_error)
}
